/** NetBox 3.7's dcim choice sets used by these models (dcim/choices.py). */

/** SiteStatusChoices (configurable as `dcim.Site.status`). */
export const SITE_STATUS = [
  ['planned', 'Planned'],
  ['staging', 'Staging'],
  ['active', 'Active'],
  ['decommissioning', 'Decommissioning'],
  ['retired', 'Retired'],
] as const;

/** LocationStatusChoices: the same values as the site's. */
export const LOCATION_STATUS = SITE_STATUS;
