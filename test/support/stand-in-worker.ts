/**
 * The opening of a stand-in worker script for the pools' tests: worker-queue.ts runs workers as
 * child processes, and the stand-ins talk to it the way job-port.ts does (IPC), under the name
 * `parentPort` the scripts use.
 */
export const STAND_IN_PORT = `
const parentPort = { on: (event, handler) => process.on(event, handler), postMessage: (message) => process.send(message) };
process.on('disconnect', () => process.exit(0));
`;
