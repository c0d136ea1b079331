import { region } from './region';
import { siteGroup } from './siteGroup';
import { site } from './site';
import { location } from './location';
import { manufacturer } from './manufacturer';
import { rackRole } from './rackRole';
import { deviceRole } from './deviceRole';
import { platform } from './platform';
import { rack } from './rack';
import { rackReservation } from './rackReservation';
import { deviceType } from './deviceType';
import { moduleType } from './moduleType';
import { consolePortTemplate } from './consolePortTemplate';
import { consoleServerPortTemplate } from './consoleServerPortTemplate';
import { powerPortTemplate } from './powerPortTemplate';
import { powerOutletTemplate } from './powerOutletTemplate';
import { interfaceTemplate } from './interfaceTemplate';
import { rearPortTemplate } from './rearPortTemplate';
import { frontPortTemplate } from './frontPortTemplate';
import { moduleBayTemplate } from './moduleBayTemplate';
import { deviceBayTemplate } from './deviceBayTemplate';
import { device } from './device';
import { virtualChassis } from './virtualChassis';
import { moduleBay } from './moduleBay';
import { deviceBay } from './deviceBay';
import { module } from './module';
import { inventoryItemRole } from './inventoryItemRole';
import { inventoryItem } from './inventoryItem';
import { inventoryItemTemplate } from './inventoryItemTemplate';
import { virtualDeviceContext } from './virtualDeviceContext';
import { cable } from './cable';
import { cableTermination } from './cableTermination';
import { powerPanel } from './powerPanel';
import { powerFeed } from './powerFeed';
import { consolePort } from './consolePort';
import { consoleServerPort } from './consoleServerPort';
import { powerPort } from './powerPort';
import { powerOutlet } from './powerOutlet';
import { iface } from './interface';
import { rearPort } from './rearPort';
import { frontPort } from './frontPort';

export { region, siteGroup, site, location, manufacturer, rackRole, deviceRole, platform, rack, rackReservation, deviceType, moduleType, consolePortTemplate, consoleServerPortTemplate, powerPortTemplate, powerOutletTemplate, interfaceTemplate, rearPortTemplate, frontPortTemplate, moduleBayTemplate, deviceBayTemplate, device, virtualChassis, moduleBay, deviceBay, module, inventoryItemRole, inventoryItem, inventoryItemTemplate, virtualDeviceContext, cable, cableTermination, powerPanel, powerFeed, consolePort, consoleServerPort, powerPort, powerOutlet, iface, rearPort, frontPort };
export { SITE_STATUS, LOCATION_STATUS, RACK_STATUS, RACK_TYPE, RACK_WIDTH, RACK_DIMENSION_UNIT, WEIGHT_UNIT, SUBDEVICE_ROLE, DEVICE_AIRFLOW, DEVICE_STATUS, DEVICE_FACE, MODULE_STATUS } from './choices';

/** Cables, power panels and feeds, device components (0005_components_and_cables), after devices and modules. */
const cabling = [cable, cableTermination, powerPanel, powerFeed, consolePort, consoleServerPort, powerPort, powerOutlet, iface, rearPort, frontPort];

/** In dependency order (tables are created in this order). */
export const models = [region, siteGroup, site, location, manufacturer, rackRole, deviceRole, platform, rack, rackReservation, deviceType, moduleType, consolePortTemplate, consoleServerPortTemplate, powerPortTemplate, powerOutletTemplate, interfaceTemplate, rearPortTemplate, frontPortTemplate, moduleBayTemplate, deviceBayTemplate, device, virtualChassis, moduleBay, deviceBay, module, ...cabling, inventoryItemRole, inventoryItem, inventoryItemTemplate, virtualDeviceContext];
