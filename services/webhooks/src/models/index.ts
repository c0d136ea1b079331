import { webhook } from './webhook';
import { webhookDelivery } from './delivery';

export { webhook, webhookDelivery };
export { HTTP_METHODS, NO_EVENT_TYPE, CA_FILE_WITHOUT_SSL } from './webhook';
export { DELIVERY_EVENTS, DELIVERY_STATUS } from './delivery';

/** In dependency order (tables are created in this order). */
export const models = [webhook, webhookDelivery];
