import { webhook } from './webhook';
import { eventRule } from './event-rule';
import { webhookDelivery } from './delivery';

export { webhook, eventRule, webhookDelivery };
export { HTTP_METHODS, NO_EVENT_TYPE, CA_FILE_WITHOUT_SSL } from './webhook';
export { ACTION_TYPES, NO_RULE_EVENT_TYPE, NO_SCRIPTS, NOT_A_WEBHOOK } from './event-rule';
export { DELIVERY_EVENTS, DELIVERY_STATUS } from './delivery';

/** In dependency order (tables are created in this order). */
export const models = [webhook, eventRule, webhookDelivery];
