// Saves or restores with the official @actions/cache client, as actions/cache
// would, for the collector's cross-checks. Run in the workspace folder with
// ACTIONS_RESULTS_URL, ACTIONS_RUNTIME_TOKEN, ACTIONS_CACHE_SERVICE_V2 and
// RUNNER_TEMP set:
//   node xcheck.mjs save KEY PATH...     prints "RESULT {"id":N}" (-1: not saved)
//   node xcheck.mjs restore KEY PATH...  prints "RESULT {"matched":KEY|null}"
import * as cache from '@actions/cache';

const [op, key, ...paths] = process.argv.slice(2);
if (op === 'save') {
  const id = await cache.saveCache(paths, key);
  console.log(`RESULT ${JSON.stringify({ id })}`);
} else if (op === 'restore') {
  const matched = await cache.restoreCache(paths, key);
  console.log(`RESULT ${JSON.stringify({ matched: matched ?? null })}`);
} else {
  console.error('usage: node xcheck.mjs save|restore KEY PATH...');
  process.exit(2);
}
