import v8 from 'node:v8'

/**
 * The V8 setting a serving process runs with: no allocation-site pretenuring.
 *
 * V8 watches where objects are made and, once the objects of one place in the code survived
 * collections of the young generation at a high rate (as they do while the process starts, or
 * when many requests wait on the database at once), makes that place's objects in the old
 * generation from then on. A server's row objects, the strings read from the database and the
 * views made of them live for one request; made old they are garbage that only a full
 * collection frees, and everything young they point to survives every scavenge until then.
 * On a page of 20 events on PostgreSQL (npm run bench, `events`) the old generation grew by
 * 44 KB a request and each scavenge took 3.8 ms instead of 0.6 ms: garbage collection was a
 * fifth of the process's CPU. Without pretenuring the old generation stays flat and the same
 * page costs 0.39 instead of 0.60 ms of CPU. Objects that do live long (the kept answers, the
 * caches) are copied once or twice more on their way to the old generation, which is cheap.
 *
 * Set at the start of `portico serve`, before the server builds anything (a V8 flag cannot be
 * given through NODE_OPTIONS, and `portico` is started by its own bin script). Node 20, 22
 * and 24 all know the flag; the measurement above is Node 20's.
 */
export function tuneHeapForServing(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring')
}
