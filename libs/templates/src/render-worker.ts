/**
 * A template worker (render-pool.ts): renders one task at a time and
 * answers its output or its error. Nothing here touches a database or the
 * network; the task brings everything the template may read.
 */
import { parentPort } from 'node:worker_threads';
import { renderJinja, TemplateRenderError } from './config';
import { exportQueryset } from './queryset';
import { renderWebhookTemplate } from './webhook';
import type { RenderReply, RenderTask } from './render-task';

async function run(task: RenderTask): Promise<string> {
  if (task.kind === 'jinja') return renderJinja(task.code, task.context, task.environment);
  if (task.kind === 'export') return renderJinja(task.code, { queryset: exportQueryset(task.objects) });
  return renderWebhookTemplate(task.template, task.context);
}

parentPort?.on('message', (msg: { id: number; task: RenderTask; outputChars: number }) => {
  void (async () => {
    let reply: RenderReply;
    try {
      const out = await run(msg.task);
      reply =
        out.length > msg.outputChars
          ? { id: msg.id, ok: false, name: 'TemplateLimitError', message: `the output is longer than the limit of ${msg.outputChars} characters (TEMPLATE_OUTPUT_LIMIT)`, line: null }
          : { id: msg.id, ok: true, out };
    } catch (err) {
      const e = err as Error;
      reply = { id: msg.id, ok: false, name: e?.name ?? 'Error', message: String(e?.message ?? err), line: err instanceof TemplateRenderError ? err.line : null };
    }
    parentPort!.postMessage(reply);
  })();
});

parentPort?.postMessage('ready');
