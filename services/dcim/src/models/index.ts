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

export { region, siteGroup, site, location, manufacturer, rackRole, deviceRole, platform, rack, rackReservation };
export { SITE_STATUS, LOCATION_STATUS, RACK_STATUS, RACK_TYPE, RACK_WIDTH, RACK_DIMENSION_UNIT, WEIGHT_UNIT } from './choices';

/** In dependency order (tables are created in this order). */
export const models = [region, siteGroup, site, location, manufacturer, rackRole, deviceRole, platform, rack, rackReservation];
