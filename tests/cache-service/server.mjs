// A test double of the GitHub Actions cache service's v2 Twirp API, for the
// collector's tests only. It keeps entries in memory and stores archives in
// Azurite (Microsoft's Azure Storage emulator), handing out SAS URLs as
// GitHub's service hands out SAS URLs into Azure Blob Storage. Checked
// against the official @actions/cache client (xcheck.mjs).
//
//   AZURITE_BLOB_URL=http://127.0.0.1:PORT/devstoreaccount1 node server.mjs [port]
//
// Prints "listening PORT" once ready. Matching follows falcondev's server
// (protocols.md A.7): exact key, then the key as a prefix (newest first),
// then each restore key, exact then prefix; only finalized entries of the
// same version count. Bearer token: CACHE_TOKEN (default "test-token").
//
// Test controls (not part of the API):
//   POST /_control/fault {"method","status","count"}  answer the next calls with an error
//   GET  /_control/calls                               methods called and statuses
//   GET  /_control/sas?blob=B&permissions=P            a SAS URL for blob B (permissions e.g. rcw)
//   GET  /_control/blob?key=K                          the archive of entry K
//   PUT  /_control/blob?key=K                          replace the archive of entry K
import http from 'node:http';
import crypto from 'node:crypto';
import {
  BlobSASPermissions,
  BlobServiceClient,
  StorageSharedKeyCredential,
  generateBlobSASQueryParameters,
} from '@azure/storage-blob';

// Azurite's well-known development account (public, documented by Microsoft).
const ACCOUNT = 'devstoreaccount1';
const ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const PREFIX = '/twirp/github.actions.results.api.v1.CacheService/';

const blobUrl = process.env.AZURITE_BLOB_URL;
if (!blobUrl) {
  console.error('AZURITE_BLOB_URL is not set');
  process.exit(2);
}
const token = process.env.CACHE_TOKEN || 'test-token';
const cred = new StorageSharedKeyCredential(ACCOUNT, ACCOUNT_KEY);
const container = new BlobServiceClient(blobUrl, cred).getContainerClient('cache');
await container.createIfNotExists();

const entries = []; // {id, key, version, blob, finalized, size}
const faults = []; // {method, status, count}
const calls = []; // {method, status}
let nextId = 1;

function sas(blob, permissions) {
  const q = generateBlobSASQueryParameters(
    {
      containerName: 'cache',
      blobName: blob,
      permissions: BlobSASPermissions.parse(permissions),
      startsOn: new Date(Date.now() - 60_000),
      expiresOn: new Date(Date.now() + 3_600_000),
    },
    cred,
  ).toString();
  return `${container.getBlockBlobClient(blob).url}?${q}`;
}

function match(key, restoreKeys, version) {
  const done = entries.filter((e) => e.finalized && e.version === version).reverse(); // newest first
  for (const k of [key, ...restoreKeys]) {
    const exact = done.find((e) => e.key === k);
    if (exact) return exact;
    const prefix = done.find((e) => e.key.startsWith(k));
    if (prefix) return prefix;
  }
  return undefined;
}

async function twirp(method, body) {
  switch (method) {
    case 'CreateCacheEntry': {
      if (entries.some((e) => e.key === body.key && e.version === body.version)) {
        return { ok: false, message: `an entry with key ${body.key} exists` };
      }
      const id = nextId++;
      const blob = `${id}-${crypto.randomUUID()}.tzst`;
      entries.push({ id, key: body.key, version: body.version, blob, finalized: false, size: 0 });
      return { ok: true, signed_upload_url: sas(blob, 'cw') };
    }
    case 'FinalizeCacheEntryUpload': {
      const e = entries.find((x) => x.key === body.key && x.version === body.version && !x.finalized);
      if (!e) return { ok: false, message: 'no such reservation' };
      const props = await container.getBlockBlobClient(e.blob).getProperties();
      if (String(props.contentLength) !== String(body.size_bytes)) {
        return { ok: false, message: `size ${body.size_bytes} but the blob has ${props.contentLength}` };
      }
      e.finalized = true;
      e.size = props.contentLength;
      return { ok: true, entry_id: String(e.id) };
    }
    case 'GetCacheEntryDownloadURL': {
      const e = match(body.key, body.restore_keys || [], body.version);
      if (!e) return { ok: false };
      return { ok: true, signed_download_url: sas(e.blob, 'r'), matched_key: e.key };
    }
    default:
      return undefined;
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res, status, obj, headers = {}) {
  const text = JSON.stringify(obj);
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(text);
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://localhost');
    const body = await readBody(req);
    if (url.pathname.startsWith(PREFIX) && req.method === 'POST') {
      const method = url.pathname.slice(PREFIX.length);
      if (req.headers.authorization !== `Bearer ${token}`) {
        calls.push({ method, status: 401 });
        return send(res, 401, { code: 'unauthenticated', msg: 'bad or missing bearer token' });
      }
      const fault = faults.find((f) => f.method === method && f.count > 0);
      if (fault) {
        fault.count -= 1;
        calls.push({ method, status: fault.status });
        const headers = fault.status === 429 ? { 'retry-after': '1' } : {};
        return send(res, fault.status, { code: 'internal', msg: `injected HTTP ${fault.status}` }, headers);
      }
      const answer = await twirp(method, JSON.parse(body.toString() || '{}'));
      if (!answer) {
        calls.push({ method, status: 404 });
        return send(res, 404, { code: 'bad_route', msg: `no method ${method}` });
      }
      calls.push({ method, status: 200 });
      return send(res, 200, answer);
    }
    if (url.pathname === '/_control/fault' && req.method === 'POST') {
      faults.push(JSON.parse(body.toString()));
      return send(res, 200, { ok: true });
    }
    if (url.pathname === '/_control/calls') return send(res, 200, calls);
    if (url.pathname === '/_control/sas') {
      return send(res, 200, { url: sas(url.searchParams.get('blob'), url.searchParams.get('permissions') || 'r') });
    }
    if (url.pathname === '/_control/blob') {
      const e = entries.find((x) => x.key === url.searchParams.get('key'));
      if (!e) return send(res, 404, { msg: 'no such entry' });
      const client = container.getBlockBlobClient(e.blob);
      if (req.method === 'GET') {
        const data = await client.downloadToBuffer();
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        return res.end(data);
      }
      if (req.method === 'PUT') {
        await client.uploadData(body);
        return send(res, 200, { ok: true });
      }
    }
    send(res, 404, { code: 'bad_route', msg: `no route ${req.method} ${url.pathname}` });
  } catch (err) {
    send(res, 500, { code: 'internal', msg: String(err && err.message ? err.message : err) });
  }
});

server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
