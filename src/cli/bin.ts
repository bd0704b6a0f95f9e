#!/usr/bin/env node
/**
 * The `cloudfn` command's first file (package.json `bin`): it checks the Node that runs it
 * before the CLI loads, since the CLI's imports (`parseArgs` of node:util, among others) fail
 * on an old Node before any of its code runs, with an error that does not name the cause.
 * A project's `node_modules/.bin/node` that is another Node is said in one line with the fix
 * (project-node.ts); an unsupported Node stops here. Node 14 syntax only.
 */
import { projectNodeProblem } from './project-node.js';

const problem = projectNodeProblem(process.cwd(), process.execPath, process.version);
if (problem !== undefined) process.stderr.write(`cloudfn: ${problem.fatal ? '' : 'warning: '}${problem.message}\n`);
if (problem?.fatal) process.exitCode = 1;
else void import('./index.js');
