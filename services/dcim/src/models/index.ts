import { region } from './region';
import { siteGroup } from './site-group';
import { site } from './site';
import { location } from './location';
import { manufacturer } from './manufacturer';
import { rackRole } from './rack-role';
import { deviceRole } from './device-role';
import { platform } from './platform';
import { rack } from './rack';
import { rackReservation } from './rack-reservation';
import { deviceType } from './device-type';
import { moduleType } from './module-type';
import { consolePortTemplate } from './console-port-template';
import { consoleServerPortTemplate } from './console-server-port-template';
import { powerPortTemplate } from './power-port-template';
import { powerOutletTemplate } from './power-outlet-template';
import { interfaceTemplate } from './interface-template';
import { rearPortTemplate } from './rear-port-template';
import { frontPortTemplate } from './front-port-template';
import { moduleBayTemplate } from './module-bay-template';
import { deviceBayTemplate } from './device-bay-template';
import { device } from './device';
import { virtualChassis } from './virtual-chassis';
import { moduleBay } from './module-bay';
import { deviceBay } from './device-bay';
import { module } from './module';
import { inventoryItemRole } from './inventory-item-role';
import { inventoryItem } from './inventory-item';
import { inventoryItemTemplate } from './inventory-item-template';
import { virtualDeviceContext } from './virtual-device-context';
import { cable } from './cable';
import { cableTermination } from './cable-termination';
import { powerPanel } from './power-panel';
import { powerFeed } from './power-feed';
import { consolePort } from './console-port';
import { consoleServerPort } from './console-server-port';
import { powerPort } from './power-port';
import { powerOutlet } from './power-outlet';
import { iface } from './interface';
import { rearPort } from './rear-port';
import { frontPort } from './front-port';
import { wirelessLanGroup, wirelessLan, wirelessLink } from './wireless';

export { region, siteGroup, site, location, manufacturer, rackRole, deviceRole, platform, rack, rackReservation, deviceType, moduleType, consolePortTemplate, consoleServerPortTemplate, powerPortTemplate, powerOutletTemplate, interfaceTemplate, rearPortTemplate, frontPortTemplate, moduleBayTemplate, deviceBayTemplate, device, virtualChassis, moduleBay, deviceBay, module, inventoryItemRole, inventoryItem, inventoryItemTemplate, virtualDeviceContext, cable, cableTermination, powerPanel, powerFeed, consolePort, consoleServerPort, powerPort, powerOutlet, iface, rearPort, frontPort, wirelessLanGroup, wirelessLan, wirelessLink };
export { SITE_STATUS, LOCATION_STATUS, RACK_STATUS, RACK_TYPE, RACK_WIDTH, RACK_DIMENSION_UNIT, WEIGHT_UNIT, SUBDEVICE_ROLE, DEVICE_AIRFLOW, DEVICE_STATUS, DEVICE_FACE, MODULE_STATUS } from './choices';

/** Cables, power panels and feeds, device components (0005_components_and_cables), after devices and modules. */
const cabling = [cable, cableTermination, powerPanel, powerFeed, consolePort, consoleServerPort, powerPort, powerOutlet, iface, rearPort, frontPort];

/** NetBox 3.7's wireless app (0009_wireless), served under /api/wireless/: after the interfaces its links join. */
const wireless = [wirelessLanGroup, wirelessLan, wirelessLink];

/** In dependency order (tables are created in this order). */
export const models = [region, siteGroup, site, location, manufacturer, rackRole, deviceRole, platform, rack, rackReservation, deviceType, moduleType, consolePortTemplate, consoleServerPortTemplate, powerPortTemplate, powerOutletTemplate, interfaceTemplate, rearPortTemplate, frontPortTemplate, moduleBayTemplate, deviceBayTemplate, device, virtualChassis, moduleBay, deviceBay, module, ...cabling, inventoryItemRole, inventoryItem, inventoryItemTemplate, virtualDeviceContext, ...wireless];
