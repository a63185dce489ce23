/*
 * The explorer's saved Python: a Pyodide memory snapshot kept in this browser's IndexedDB,
 * so that a later visit restores Python (about a fifth of the work, measured in CPU time)
 * instead of starting it afresh.
 *
 * Imported by explorer-worker.mjs (module Web Worker). The worker makes the snapshot right
 * after a normal start, before any of the reader's code has run, and saves it here; a later
 * page load reads it back and hands it to loadPyodide({_loadSnapshot}).
 *
 * One record per site: {key, length, pages, data, sha256}.
 *   key     what the snapshot was made from: Pyodide's version, the sha256 of explorer.py,
 *           results.json and the worker's set-up code, and this browser (user agent,
 *           language, time zone: Python copied them into its memory at start). A record
 *           whose key differs in anything is not used; the next normal start replaces it.
 *   pages   the indexes of the 64 KiB pages of Python's memory that are not all zero
 *           (about half are); data holds those pages, one after another, as a Blob.
 *   sha256  of data: a damaged record is found before Python ever sees it.
 */

const DB_NAME = "lesson-explorer";
const STORE = "snapshots";
const RECORD = "python";
const PAGE = 65536; // one WebAssembly page
const SLICE_PAGES = 32; // pages scanned between two yields, so a Run is never held up long

export class SnapshotDamaged extends Error {}

/** Snapshots need IndexedDB and Web Crypto (a secure context: https or localhost). */
export function snapshotsPossible() {
  return typeof indexedDB !== "undefined" && Boolean(globalThis.crypto?.subtle);
}

export async function sha256Hex(data) {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function sameKey(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

// ---- IndexedDB ---------------------------------------------------------------------------

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function withStore(mode, action) {
  const open = indexedDB.open(DB_NAME, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE);
  const db = await request(open);
  try {
    const transaction = db.transaction(STORE, mode);
    const done = new Promise((resolve, reject) => {
      transaction.oncomplete = resolve;
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error || new Error("aborted"));
    });
    const result = await request(action(transaction.objectStore(STORE)));
    await done;
    return result;
  } finally {
    db.close();
  }
}

/** The saved record (undefined when there is none); unpack() it once its key agrees. */
export function readRecord() {
  return withStore("readonly", (store) => store.get(RECORD));
}

export function forget() {
  return withStore("readwrite", (store) => store.delete(RECORD));
}

// ---- packing: leave out the zero pages -----------------------------------------------------

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

function isZero(bytes) {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** The snapshot's non-zero pages and their indexes; yields to waiting messages as it goes. */
async function pack(snapshot) {
  const pageOf = (page) => snapshot.subarray(page * PAGE, (page + 1) * PAGE);
  const kept = [];
  for (let page = 0; page < Math.ceil(snapshot.length / PAGE); page++) {
    if (!isZero(pageOf(page))) kept.push(page);
    if (page % SLICE_PAGES === SLICE_PAGES - 1) await nextTask();
  }
  const data = new Uint8Array(kept.length * PAGE);
  for (let i = 0; i < kept.length; i++) {
    data.set(pageOf(kept[i]), i * PAGE);
    if (i % SLICE_PAGES === SLICE_PAGES - 1) await nextTask();
  }
  return { pages: Uint32Array.from(kept), data };
}

/** The snapshot again, from a record; throws SnapshotDamaged if anything does not add up. */
export async function unpack(record) {
  const { length, pages, data } = record;
  if (!Number.isInteger(length) || !(pages instanceof Uint32Array) || !(data instanceof Blob)) {
    throw new SnapshotDamaged("its record is incomplete");
  }
  if (data.size !== pages.length * PAGE) throw new SnapshotDamaged("its size is wrong");
  const bytes = new Uint8Array(await data.arrayBuffer());
  const sha256 = await sha256Hex(bytes);
  if (sha256 !== record.sha256) throw new SnapshotDamaged("its checksum is wrong");
  const snapshot = new Uint8Array(Math.ceil(length / PAGE) * PAGE);
  pages.forEach((page, i) => {
    if (page * PAGE >= snapshot.length) throw new SnapshotDamaged("a page is out of range");
    snapshot.set(bytes.subarray(i * PAGE, (i + 1) * PAGE), page * PAGE);
  });
  return snapshot.subarray(0, length);
}

/** Save a snapshot under its key (replacing any other); returns the bytes stored. */
export async function save(key, snapshot) {
  const { pages, data } = await pack(snapshot);
  const record = {
    key,
    length: snapshot.length,
    pages,
    data: new Blob([data]),
    sha256: await sha256Hex(data),
  };
  await withStore("readwrite", (store) => store.put(record, RECORD));
  return data.length + pages.byteLength;
}
