import { ValidationError } from '@inventory/core';
import { f, type ModelDef } from '@inventory/rest';
import { INTERFACE_TYPE, POE_MODE, POE_TYPE, WIRELESS_ROLE } from './component-choices';
import { componentTemplate, templateName, templateRow } from './component-template';

export const interfaceTemplate: ModelDef = componentTemplate({
  label: 'dcim.interfacetemplate',
  endpoint: 'interface-templates',
  table: 'interface_template',
  verboseName: 'interface template',
  modular: true,
  fields: {
    type: f.choice(INTERFACE_TYPE, { required: true, nullable: false }),
    enabled: f.boolean(true),
    mgmt_only: f.boolean(false, { label: 'management only' }),
  },
  after: {
    bridge: f.fk('dcim.interfacetemplate', 'SET_NULL', { filterKey: null, label: 'bridge interface' }),
    poe_mode: f.choice(POE_MODE, { blank: true, label: 'PoE mode' }),
    poe_type: f.choice(POE_TYPE, { blank: true, label: 'PoE type' }),
    rf_role: f.choice(WIRELESS_ROLE, { blank: true, label: 'wireless role' }),
  },
  // InterfaceTemplate.clean(): the bridge is another interface template of the same owner
  validate: async (row, existing, wctx) => {
    if (row.bridge_id === null || row.bridge_id === undefined) return;
    if (existing && Number(row.bridge_id) === Number(existing.id)) throw new ValidationError({ bridge: ['An interface cannot be bridged to itself.'] });
    const bridge = await templateRow(wctx, interfaceTemplate, row.bridge_id);
    if (!bridge) return;
    const dt = row.device_type_id ?? null;
    const mt = row.module_type_id ?? null;
    if (dt !== null && String(dt) !== String(bridge.device_type_id ?? null)) {
      throw new ValidationError({ bridge: [`Bridge interface (${templateName(bridge)}) must belong to the same device type`] });
    }
    if (mt !== null && String(mt) !== String(bridge.module_type_id ?? null)) {
      throw new ValidationError({ bridge: [`Bridge interface (${templateName(bridge)}) must belong to the same module type`] });
    }
  },
});
