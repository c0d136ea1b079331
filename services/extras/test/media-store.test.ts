import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MediaStore, validName } from '../src/images/store';

let root: string;
let store: MediaStore;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'media-store-'));
  store = new MediaStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));
const dir = () => path.join(root, 'image-attachments');

describe('the media store', () => {
  test('when a name is taken, then the new file gets a suffix and neither is overwritten', async () => {
    const a = await store.save('site_1_rack view', 'png', Buffer.from('first'));
    const b = await store.save('site_1_rack view', 'png', Buffer.from('second'));
    expect(a).toBe('image-attachments/site_1_rack_view.png');
    expect(b).toMatch(/^image-attachments\/site_1_rack_view_[0-9a-f]{7}\.png$/);
    expect(readdirSync(dir()).length).toBe(2);
  });

  test('when a name is long or odd, then the stored name fits its column and keeps only safe characters', async () => {
    const stored = await store.save(`site_1_${'é/../x'.repeat(40)}`, 'jpg', Buffer.from('x'));
    expect(stored.length).toBeLessThanOrEqual(100);
    expect(stored).toMatch(/^image-attachments\/site_1_[A-Za-z0-9_.-]+\.jpg$/);
    expect(validName('  ..hidden name!.png')).toBe('hidden_name.png');
  });

  test('when a stored name would leave the folder, then it is no path of the store', () => {
    expect(store.pathOf('image-attachments/a.png')).toBe(path.join(root, 'image-attachments', 'a.png'));
    for (const bad of ['image-attachments/../a.png', '../a.png', 'image-attachments/.env', 'image-attachments/a/b.png', 'other/a.png', 'image-attachments/']) {
      expect([bad, store.pathOf(bad)]).toEqual([bad, null]);
    }
  });

  test('when the sweep runs, then only files older than the grace period that no row names go', async () => {
    const named = await store.save('site_1_named', 'png', Buffer.from('n'));
    const orphan = await store.save('site_1_orphan', 'png', Buffer.from('o'));
    const young = await store.save('site_1_young', 'png', Buffer.from('y'));
    const old = new Date(Date.now() - 2 * 3_600_000);
    for (const s of [named, orphan]) utimesSync(path.join(root, s), old, old);
    writeFileSync(path.join(dir(), '.keep'), '');
    utimesSync(path.join(dir(), '.keep'), old, old);
    const removed = await store.sweep(async (names) => new Set(names.filter((n) => n === named)), 3_600_000);
    expect(removed).toEqual([orphan]);
    expect([existsSync(path.join(root, named)), existsSync(path.join(root, orphan)), existsSync(path.join(root, young))]).toEqual([true, false, true]);
  });

  test('when nothing was ever stored, then the sweep has nothing to do', async () => {
    expect(await store.sweep(async () => new Set(), 0)).toEqual([]);
  });
});
