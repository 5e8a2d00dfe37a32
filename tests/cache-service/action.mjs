// actions/cache's save and restore entry points (restore/action.yml and
// save/action.yml of actions/cache v5.0.5: src/saveImpl.ts, restoreImpl.ts),
// driven the same way over the official @actions/cache package, for the
// rehearsal of the benchmark workflow's action method. The runner gives it
// the step's inputs as INPUT_* and the cache service as ACTIONS_RESULTS_URL,
// ACTIONS_RUNTIME_TOKEN and ACTIONS_CACHE_SERVICE_V2, as it does a
// JavaScript action:
//   node action.mjs save | restore
// It reads the same inputs, calls saveCache / restoreCache with the same
// arguments, sets the same outputs (restore: cache-primary-key always,
// cache-matched-key and cache-hit on a hit; nothing on a miss), and, as the
// action does, ends a save with success whatever the service said (failures
// are warnings) and fails a restore only on a miss with fail-on-cache-miss.
import * as core from '@actions/core';
import * as cache from '@actions/cache';

// utils/actionUtils.ts
const inputList = (name) =>
  core.getInput(name).split('\n').map((s) => s.replace(/^!\s+/, '!').trim()).filter((x) => x !== '');
const inputBool = (name) => core.getInput(name).toLowerCase() === 'true';
const inputInt = (name) => {
  const value = parseInt(core.getInput(name));
  return isNaN(value) || value < 0 ? undefined : value;
};

// utils/actionUtils.ts isValidEvent: the action refuses to run without a ref.
function validEvent() {
  if (process.env.GITHUB_REF) return true;
  core.info(`[warning]Event Validation Error: The event type ${process.env.GITHUB_EVENT_NAME} is not supported because it's not tied to a branch or tag ref.`);
  return false;
}

async function save() {
  try {
    if (!cache.isFeatureAvailable()) return;
    if (!validEvent()) return;
    const key = core.getInput('key');
    const paths = inputList('path');
    if (paths.length === 0) throw new Error('Input required and not supplied: path');
    const id = await cache.saveCache(
      paths,
      key,
      { uploadChunkSize: inputInt('upload-chunk-size') },
      inputBool('enableCrossOsArchive'),
    );
    if (id !== -1) core.info(`Cache saved with key: ${key}`);
    else core.warning('Cache save failed.');
  } catch (error) {
    core.info(`[warning]${error.message}`);
  }
}

async function restore() {
  try {
    if (!cache.isFeatureAvailable()) {
      core.setOutput('cache-hit', 'false');
      return;
    }
    if (!validEvent()) return;
    const primaryKey = core.getInput('key', { required: true });
    core.setOutput('cache-primary-key', primaryKey);
    const restoreKeys = inputList('restore-keys');
    const paths = inputList('path');
    if (paths.length === 0) throw new Error('Input required and not supplied: path');
    const matched = await cache.restoreCache(
      paths,
      primaryKey,
      restoreKeys,
      { lookupOnly: inputBool('lookup-only') },
      inputBool('enableCrossOsArchive'),
    );
    if (!matched) {
      if (inputBool('fail-on-cache-miss')) {
        throw new Error(`Failed to restore cache entry. Exiting as fail-on-cache-miss is set. Input key: ${primaryKey}`);
      }
      core.info(`Cache not found for input keys: ${[primaryKey, ...restoreKeys].join(', ')}`);
      return;
    }
    core.setOutput('cache-matched-key', matched);
    const hit = matched.localeCompare(primaryKey, undefined, { sensitivity: 'accent' }) === 0;
    core.setOutput('cache-hit', hit.toString());
    core.info(`Cache restored from key: ${matched}`);
  } catch (error) {
    core.setFailed(error.message);
  }
}

const op = process.argv[2];
if (op === 'save') await save();
else if (op === 'restore') await restore();
else {
  console.error('usage: node action.mjs save|restore');
  process.exit(2);
}
