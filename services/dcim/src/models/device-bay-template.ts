import { ValidationError } from '@inventory/core';
import { sql, raw } from '@inventory/filtering';
import type { ModelDef } from '@inventory/rest';
import { componentTemplate } from './component-template';
import { deviceType } from './device-type';

export const deviceBayTemplate: ModelDef = componentTemplate({
  label: 'dcim.devicebaytemplate',
  endpoint: 'device-bay-templates',
  table: 'device_bay_template',
  verboseName: 'device bay template',
  modular: false,
  // DeviceBayTemplate.clean(): only a parent device type has device bays
  validate: async (row, _existing, wctx) => {
    const [dt] = await wctx.tx.query(
      sql`SELECT model, subdevice_role FROM ${raw(wctx.service.db.table(deviceType.table))} WHERE id = ${row.device_type_id ?? 0}`,
    );
    if (dt && dt.subdevice_role !== 'parent') {
      throw new ValidationError({ __all__: [`Subdevice role of device type (${String(dt.model)}) must be set to "parent" to allow device bays.`] });
    }
  },
});
