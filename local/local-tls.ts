import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import path from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { generate } from 'selfsigned';
import { REPO_ROOT } from './paths.ts';

/** Where the local runtime keeps the certificate its API answers HTTPS with, kept across starts so that it is trusted once. */
export const LOCAL_TLS_DIR = path.join(REPO_ROOT, '.prognoz', 'tls');
/** The certificate to trust (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE) to read the local runtime's output file URLs. */
export const LOCAL_CERTIFICATE_FILE = path.join(LOCAL_TLS_DIR, 'local-runtime.pem');
/** Key and certificate in one file, replaced as a whole, so that two runtimes starting at once never pair one's key with the other's certificate. */
const BUNDLE_FILE = path.join(LOCAL_TLS_DIR, 'local-runtime.bundle.pem');

const VALID_DAYS = 825;
const RENEW_WITHIN_MS = 30 * 24 * 60 * 60 * 1000;

export interface LocalTls {
  readonly cert: string;
  readonly key: string;
  readonly certificateFile: string;
}

const stillGood = (cert: string): boolean => {
  try {
    return new Date(new X509Certificate(cert).validTo).getTime() - Date.now() > RENEW_WITHIN_MS;
  } catch {
    return false;
  }
};

/**
 * The certificate the local runtime's API answers HTTPS with (127.0.0.1 and localhost), made on
 * the first start. Replicate's clients make a `FileOutput` only of an https URL, so the local
 * runtime's output file URLs are https; a client that trusts this certificate reads them as it
 * reads Replicate's.
 */
export const localTls = async (): Promise<LocalTls> => {
  const existing = await readFile(BUNDLE_FILE, 'utf8')
    .then(splitBundle)
    .catch(() => null);
  if (existing && stillGood(existing.cert)) {
    await replaceFile(LOCAL_CERTIFICATE_FILE, existing.cert);
    return { ...existing, certificateFile: LOCAL_CERTIFICATE_FILE };
  }
  const made = await generate([{ name: 'commonName', value: 'prognoz local runtime' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + VALID_DAYS * 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  await mkdir(LOCAL_TLS_DIR, { recursive: true });
  await replaceFile(BUNDLE_FILE, `${made.private}\n${made.cert}`);
  await replaceFile(LOCAL_CERTIFICATE_FILE, made.cert);
  return { cert: made.cert, key: made.private, certificateFile: LOCAL_CERTIFICATE_FILE };
};

const splitBundle = (bundle: string): { cert: string; key: string } | null => {
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(bundle)?.[0];
  const key = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/.exec(bundle)?.[0];
  return cert && key ? { cert: `${cert}\n`, key: `${key}\n` } : null;
};

const replaceFile = async (file: string, text: string): Promise<void> => {
  const staging = `${file}.${process.pid}.tmp`;
  await writeFile(staging, text, { mode: 0o600 });
  await rename(staging, file);
};

/**
 * This process, and every process it starts from now on (workers, a test runner's forks), trust
 * the certificate: NODE_EXTRA_CA_CERTS is read when a process starts, so this one is told directly.
 */
export const trustLocally = (tls: LocalTls): void => {
  process.env.NODE_EXTRA_CA_CERTS = tls.certificateFile;
  const trusted = getCACertificates('default');
  if (!trusted.includes(tls.cert)) setDefaultCACertificates([...trusted, tls.cert]);
};
