import * as z from '../zod-mini.ts';

/**
 * A file input: an http(s) URL. `data:` URLs and every other scheme are rejected (interface: Requests).
 * Whether the host may be fetched (private ranges, loopback) is decided by the fetcher at run
 * time, where the address is actually resolved.
 */
export const httpUrl = () =>
  z.string().check(
    z.maxLength(4096),
    z.superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
        return;
      }
      if (url.protocol === 'data:') {
        ctx.addIssue({ code: 'custom', message: 'data: URLs are not supported; pass an http(s) URL' });
      } else if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        ctx.addIssue({
          code: 'custom',
          message: `the ${url.protocol.slice(0, -1)} scheme is not supported; pass an http(s) URL`,
        });
      } else if (url.username !== '' || url.password !== '') {
        ctx.addIssue({ code: 'custom', message: 'URLs with credentials are not accepted' });
      }
    }),
    z.meta({ format: 'uri', description: 'An http(s) URL the model fetches. Data URLs are not supported.' }),
  );
