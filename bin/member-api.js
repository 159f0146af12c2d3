#!/usr/bin/env node
// The `member-api` command. The TypeScript sources run through tsx's loader, so a fresh
// clone works right after `npm install`, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv);
