import { region } from './region';
import { siteGroup } from './siteGroup';
import { site } from './site';
import { location } from './location';

export { region, siteGroup, site, location };
export { SITE_STATUS, LOCATION_STATUS } from './choices';

/** In dependency order (tables are created in this order). */
export const models = [region, siteGroup, site, location];
