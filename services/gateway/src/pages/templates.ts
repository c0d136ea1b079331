import path from 'node:path';
import { escapeHtml } from '@inventory/core';
import { htmlTemplates } from '@inventory/templates';
import { CSRF_FIELD } from '../auth/csrf';

/**
 * The gateway's pages are liquid templates in services/gateway/templates
 * (beside src/ and dist/, so this path holds under ts-jest and after the
 * build); the TypeScript gathers their data. Every `{{ }}` is HTML-escaped.
 */
export const renderPage = htmlTemplates(path.join(__dirname, '..', '..', 'templates'), {
  escape: escapeHtml,
  globals: { csrfField: CSRF_FIELD },
});
