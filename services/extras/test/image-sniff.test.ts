import { sniffImage, mimeOf } from '../src/images/sniff';
import { GIF_1x1, png } from './images';

describe('image sniffing', () => {
  test('when the bytes are a complete PNG, then its kind and dimensions come from them', () => {
    expect(sniffImage(png(3, 2))).toEqual({ kind: { ext: 'png', mime: 'image/png' }, width: 3, height: 2 });
  });

  test('when the bytes are a GIF, then it is one, whatever a name would say', () => {
    expect(sniffImage(GIF_1x1)).toEqual({ kind: { ext: 'gif', mime: 'image/gif' }, width: 1, height: 1 });
  });

  test('when a PNG is cut short, then it is not an image', () => {
    const whole = png(40, 40, true);
    expect(sniffImage(whole.subarray(0, whole.length - 20))).toBeNull();
  });

  test('when a PNG signature fronts something else, then it is not an image', () => {
    const head = png(1, 1).subarray(0, 33); // signature and IHDR
    expect(sniffImage(Buffer.concat([head, Buffer.from('<script>alert(1)</script>')]))).toBeNull();
  });

  test('when the bytes are SVG or text, then they are refused (a browser would run SVG)', () => {
    expect(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'))).toBeNull();
    expect(sniffImage(Buffer.from('just some text, not an image'))).toBeNull();
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
  });

  test('when a stored name is served, then its Content-Type follows its extension, and only ours have one', () => {
    expect([mimeOf('image-attachments/site_1_a.png'), mimeOf('x.JPG'), mimeOf('x.webp'), mimeOf('x.svg'), mimeOf('x.html')]).toEqual([
      'image/png',
      'image/jpeg',
      'image/webp',
      null,
      null,
    ]);
  });
});
