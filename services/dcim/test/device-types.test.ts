import { dcimSuite, type Obj } from './stack';

const suite = dcimSuite();
const { made } = suite;

let n = 0;
const aMaker = () => {
  n++;
  return made('/api/dcim/manufacturers/', { name: `Type maker ${n}`, slug: `type-maker-${n}` });
};

describe('device types', () => {
  test('when a device type is created with only manufacturer, model and slug, then NetBox defaults apply and every count is 0', async () => {
    const maker = await aMaker();
    const dt = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'MX480', slug: 'mx480' });
    expect(dt).toMatchObject({
      display: 'MX480',
      manufacturer: { id: maker.id, name: maker.name, slug: maker.slug },
      default_platform: null,
      part_number: '',
      u_height: 1,
      exclude_from_utilization: false,
      is_full_depth: true,
      subdevice_role: null,
      airflow: null,
      weight: null,
      weight_unit: null,
      front_image: null,
      rear_image: null,
      description: '',
      comments: '',
      device_count: 0,
      console_port_template_count: 0,
      console_server_port_template_count: 0,
      power_port_template_count: 0,
      power_outlet_template_count: 0,
      interface_template_count: 0,
      front_port_template_count: 0,
      rear_port_template_count: 0,
      device_bay_template_count: 0,
      module_bay_template_count: 0,
      inventory_item_template_count: 0,
    });
    const brief = (await suite.api().get(`/api/dcim/device-types/${dt.id}/?brief=1`)).body;
    expect(Object.keys(brief).sort()).toEqual(['device_count', 'display', 'id', 'manufacturer', 'model', 'slug', 'url']);
    expect((await suite.api().get(`/api/dcim/manufacturers/${maker.id}/`)).body.devicetype_count).toBe(1);
  });

  test('when u_height is not a multiple of 0.5, then it is refused with NetBox message; half units and 0 are accepted', async () => {
    const maker = await aMaker();
    const bad = await suite.api().post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Odd', slug: 'odd', u_height: 1.3 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ u_height: ['U height must be in increments of 0.5 rack units.'] });
    const half = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Half', slug: 'half', u_height: 1.5 });
    expect(half.u_height).toBe(1.5);
    const zero = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Zero', slug: 'zero', u_height: 0 });
    expect(zero.u_height).toBe(0);
    const negative = await suite.api().post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Neg', slug: 'neg', u_height: -1 });
    expect(negative.status).toBe(400);
    expect(Object.keys(negative.body)).toEqual(['u_height']);
    const patched = await suite.api().patch(`/api/dcim/device-types/${half.id}/`, { u_height: 2.25 });
    expect(patched.status).toBe(400);
    expect((await suite.api().get(`/api/dcim/device-types/${half.id}/`)).body.u_height).toBe(1.5);
  });

  test('when a child device type is not 0U, then it is refused; at 0U it is accepted', async () => {
    const maker = await aMaker();
    const bad = await suite.api().post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Blade', slug: 'blade', subdevice_role: 'child' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ u_height: ['Child device types must be 0U.'] });
    const blade = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Blade', slug: 'blade', subdevice_role: 'child', u_height: 0 });
    expect(blade.subdevice_role).toEqual({ value: 'child', label: 'Child' });
  });

  test('when a weight has no unit, then it is refused', async () => {
    const maker = await aMaker();
    const bad = await suite.api().post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Heavy', slug: 'heavy', weight: 20 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ __all__: ['Must specify a unit when setting a weight'] });
    const ok = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Heavy', slug: 'heavy', weight: 20.25, weight_unit: 'kg' });
    expect(ok).toMatchObject({ weight: 20.25, weight_unit: { value: 'kg', label: 'Kilograms' } });
  });

  test('when model or slug repeats under one manufacturer, then NetBox messages refuse it; another manufacturer may reuse both', async () => {
    const maker = await aMaker();
    const other = await aMaker();
    await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300', slug: 'ex4300' });
    const sameModel = await suite.api().post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300', slug: 'ex4300-b' });
    expect(sameModel.status).toBe(400);
    expect(sameModel.body).toEqual({ __all__: ['Device type with this Manufacturer and Model already exists.'] });
    const sameSlug = await suite.api().post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'EX4300 B', slug: 'ex4300' });
    expect(sameSlug.status).toBe(400);
    expect(sameSlug.body).toEqual({ __all__: ['Device type with this Manufacturer and Slug already exists.'] });
    await made('/api/dcim/device-types/', { manufacturer: other.id, model: 'EX4300', slug: 'ex4300' });
  });

  test('when the default platform is deleted, then device types keep going without it; their manufacturer cannot be deleted', async () => {
    const maker = await aMaker();
    const platform = await made('/api/dcim/platforms/', { name: `OS ${n}`, slug: `os-${n}` });
    const dt = await made('/api/dcim/device-types/', { manufacturer: maker.id, model: 'QFX', slug: 'qfx', default_platform: platform.id, front_image: 'devicetype-images/qfx.png' });
    expect(dt.default_platform).toMatchObject({ id: platform.id, slug: platform.slug });
    expect((await suite.api().get(`/api/dcim/device-types/?has_front_image=true&manufacturer_id=${maker.id}`)).body.count).toBe(1);
    expect((await suite.api().get(`/api/dcim/device-types/?has_rear_image=true&manufacturer_id=${maker.id}`)).body.count).toBe(0);
    expect((await suite.api().delete(`/api/dcim/platforms/${platform.id}/`)).status).toBe(204);
    expect((await suite.api().get(`/api/dcim/device-types/${dt.id}/`)).body.default_platform).toBeNull();
    expect((await suite.api().delete(`/api/dcim/manufacturers/${maker.id}/`)).status).toBe(409);
  });
});

describe('module types', () => {
  test('when a model repeats under one manufacturer, then NetBox message refuses it; brief is manufacturer and model', async () => {
    const maker = await aMaker();
    const mt = await made('/api/dcim/module-types/', { manufacturer: maker.id, model: 'SFP-10G-LR' });
    expect(mt).toMatchObject({ display: 'SFP-10G-LR', part_number: '', weight: null, weight_unit: null, comments: '' });
    const again = await suite.api().post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'SFP-10G-LR' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ __all__: ['Module type with this Manufacturer and Model already exists.'] });
    const brief = (await suite.api().get(`/api/dcim/module-types/${mt.id}/?brief=1`)).body;
    expect(Object.keys(brief).sort()).toEqual(['display', 'id', 'manufacturer', 'model', 'url']);
    const heavy = await suite.api().post('/api/dcim/module-types/', { manufacturer: maker.id, model: 'Line card', weight: 3 });
    expect(heavy.body).toEqual({ __all__: ['Must specify a unit when setting a weight'] });
    const found = await suite.api().get(`/api/dcim/module-types/?q=${encodeURIComponent(maker.name)}`);
    expect(found.body.results.map((x: Obj) => x.id)).toEqual([mt.id]);
  });
});
