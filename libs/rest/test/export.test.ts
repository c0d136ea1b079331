import { PyObject, renderJinja } from '@inventory/templates';
import { defineModel, f } from '@inventory/rest';
import { csvText, exportFileName, templateObject } from '../src/read/export';

const device = defineModel({
  label: 'dcim.device',
  endpoint: 'devices',
  verboseName: 'device',
  fields: {
    name: f.string(64),
    status: f.choice([['active', 'Active'], ['planned', 'Planned']]),
    airflow: f.choice([['front-to-rear', 'Front to rear']], { plain: true }),
    site: f.fk('dcim.site', 'PROTECT'),
    vdcs: f.m2m('dcim.virtualdevicecontext', 'device_vdcs'),
  },
  brief: ['name'],
  display: (r) => String(r.name),
  ordering: ['name'],
});
const rep = {
  id: 3,
  url: 'http://x/api/dcim/devices/3/',
  display: 'r3',
  name: 'r3',
  status: { value: 'active', label: 'Active' },
  airflow: 'front-to-rear',
  site: { id: 9, url: 'http://x/api/dcim/sites/9/', display: 'DC1', name: 'DC1', slug: 'dc1' },
  vdcs: [{ id: 1, display: 'vdc-a', name: 'vdc-a' }],
  tags: [{ id: 2, display: 'core', name: 'core', slug: 'core', color: 'ff0000' }],
  custom_fields: { rack_note: 'x' },
};

describe('an exported object as a template reads it', () => {
  test('when a representation becomes a queryset item, then choices are their stored values, relations model instances, and cf the custom fields', async () => {
    const obj = templateObject(device, rep);
    expect(obj).toBeInstanceOf(PyObject);
    const text = await renderJinja(
      '{{ d }}|{{ d.pk }}|{{ d.status }}|{{ d.airflow }}|{{ d.site }}|{{ d.site.slug }}|{{ d.site.pk }}|{{ d.vdcs | join(",") }}|{{ d.tags | join(",") }}|{{ d.cf.rack_note }}',
      { d: obj },
    );
    expect(text).toBe('r3|3|active|front-to-rear|DC1|dc1|9|vdc-a|core|x');
  });

  test('when a related object is missing, then it reads as None', async () => {
    expect(await renderJinja('{{ d.site }}|{% if d.site %}yes{% else %}no{% endif %}', { d: templateObject(device, { ...rep, site: null }) })).toBe('None|no');
  });
});

describe('an exported value in a CSV cell', () => {
  test('when values of each kind are written, then they read as NetBox\'s table export shows them', () => {
    expect(csvText(null)).toBe('');
    expect(csvText(undefined)).toBe('');
    expect(csvText('r1')).toBe('r1');
    expect(csvText(12.5)).toBe('12.5');
    expect(csvText(true)).toBe('True');
    expect(csvText(false)).toBe('False');
    expect(csvText({ value: 'active', label: 'Active' })).toBe('Active');
    expect(csvText({ id: 1, display: 'DC1', name: 'DC1' })).toBe('DC1');
    expect(csvText([{ id: 1, display: 'a' }, { id: 2, display: 'b' }])).toBe('a,b');
    expect(csvText({ a: 1 })).toBe('{"a":1}');
  });

  test('when a model is exported, then the file is named netbox_<verbose name plural> with spaces as underscores', () => {
    expect(exportFileName(device, 'csv')).toBe('netbox_devices.csv');
    expect(exportFileName({ ...device, verboseName: 'IP address', verboseNamePlural: 'IP addresses' }, '')).toBe('netbox_IP_addresses');
    expect(exportFileName({ ...device, verboseName: 'virtual chassis', verboseNamePlural: 'virtual chassis' }, 'txt')).toBe('netbox_virtual_chassis.txt');
  });
});
