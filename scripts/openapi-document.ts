/** The OpenAPI document as the server serves it, and the client's types made from it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { appDependencies, createServices } from '../src/compose.js';
import { loadConfig } from '../src/config.js';

/** Builds the app over a throwaway store and answers its document. */
export async function openApiDocument(): Promise<object> {
  const dir = mkdtempSync(join(tmpdir(), 'member-api-openapi-'));
  const config = loadConfig({ DATABASE_URL: join(dir, 'doc.db') });
  const services = await createServices(config);
  try {
    const app = await buildApp(appDependencies(services, config, { logger: false, version: '0.0.0' }));
    await app.ready();
    const document = app.swagger();
    await app.close();
    return document;
  } finally {
    await services.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const HEADER = `/**
 * The API's paths, parameters and answers as TypeScript types, generated from the OpenAPI
 * document (/api2/openapi.json) by openapi-typescript. Do not edit: run \`npm run client-types\`.
 */
`;

export async function clientTypesFrom(document: object): Promise<string> {
  return HEADER + astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}
