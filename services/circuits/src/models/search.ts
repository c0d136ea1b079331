/** The engine's `q` helpers, under the names circuits' declarations use. */
export { searchFilter, ilike } from '@inventory/rest';
