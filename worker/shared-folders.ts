import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

/** One run's folder while the model server may fetch from it. */
export interface SharedFolder {
  /** The address the model server fetches `file` (a file of the folder) at. */
  readonly urlOf: (file: string) => string;
  /** Ends the sharing: the folder's files are not served any more. */
  readonly close: () => void;
}

const ROUTE = /^\/inputs\/([0-9a-f]{32})\/([^/?]+)$/;

/**
 * A run's fetched file inputs, served to its model server over HTTP: coglet hands a predictor a
 * `cog.Path` (or a file object for `cog.File`) only for an `http(s)` or `data:` URL, and a plain
 * path as a `str`. Each folder is served under a random name of its own, for as long as its run
 * is prepared and running, from the worker's callback server, which the model server reaches.
 */
export class SharedFolders {
  private readonly folders = new Map<string, string>();

  share(folder: string, baseUrl: string): SharedFolder {
    const name = randomBytes(16).toString('hex');
    this.folders.set(name, folder);
    return {
      urlOf: (file) => {
        if (path.dirname(file) !== folder) throw new Error(`${file} is not a file of the shared folder ${folder}`);
        return `${baseUrl}/inputs/${name}/${encodeURIComponent(path.basename(file))}`;
      },
      close: () => this.folders.delete(name),
    };
  }

  /** Answers a request for a shared file; false for a request that is not one. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    const match = ROUTE.exec(req.url ?? '');
    if (req.method !== 'GET' || !match) return false;
    const folder = this.folders.get(match[1] ?? '');
    const file = decodeURIComponent(match[2] ?? '');
    if (folder === undefined || file !== path.basename(file) || file === '..' || file === '.') {
      res.writeHead(404).end();
      return true;
    }
    const stream = createReadStream(path.join(folder, file));
    stream.once('open', () => res.writeHead(200, { 'content-type': 'application/octet-stream' }));
    stream.once('error', () => {
      if (!res.headersSent) res.writeHead(404);
      res.end();
    });
    stream.pipe(res);
    return true;
  }
}
