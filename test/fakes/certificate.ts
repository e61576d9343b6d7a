/**
 * A self-signed TLS certificate for `localhost` and `127.0.0.1`, made in the test with
 * node:crypto, which can sign but not build X.509: the DER is written here. The fakes
 * serve it and clients trust it by `ca`, so TLS is verified as in production. (The
 * certificate smtp-server ships for tests expired in February 2025.) Valid from 2000 to
 * 2099, an ECDSA P-256 key, signed with SHA-256.
 */
import { generateKeyPairSync, sign } from 'node:crypto';

export interface TestCertificate {
  /** PEM of the certificate; also the CA a client trusts. */
  cert: string;
  /** PEM (PKCS #8) of the private key. */
  key: string;
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const part of rest) {
    const base128: number[] = [part & 0x7f];
    for (let v = part >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  // UTCTime up to 2049, GeneralizedTime after (RFC 5280, 4.1.2.5).
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${iso}Z`));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** Makes a new key and a self-signed certificate for it. */
export function selfSignedCertificate(): TestCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const name = sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from('localhost')))));
  const subjectAltName = sequence(
    oid('2.5.29.17'),
    tlv(
      0x04,
      sequence(tlv(0x82, Buffer.from('localhost')), tlv(0x87, Buffer.from([127, 0, 0, 1]))),
    ),
  );
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, Buffer.from([0x01, 0x23, 0x45, 0x67])),
    ecdsaWithSha256,
    name,
    sequence(time(new Date('2000-01-01T00:00:00Z')), time(new Date('2099-12-31T23:59:59Z'))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, sequence(subjectAltName)),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.from([0]), signature));
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { cert: pem('CERTIFICATE', certificate), key };
}
