export { createService } from './service';
