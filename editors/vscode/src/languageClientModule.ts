/**
 * vscode-languageclient, loaded when the server starts rather than with the extension: it
 * is four fifths of the bundle (about 360 of 450 KB minified), and nothing the Plan view
 * draws first (the plans last seen, issue 33 item 12) needs it. The build puts it in a file
 * of its own (`out/languageclient.js`, scripts/build.mjs), so activating the extension
 * neither reads nor compiles it.
 */
import type * as languageClient from 'vscode-languageclient/node';
import type { ResponseError } from 'vscode-languageclient/node';

/** What `vscode-languageclient/node` exports. */
export type LanguageClientModule = typeof languageClient;

let loaded: LanguageClientModule | undefined;

/**
 * The module, loaded once, at the first server start. A `require`, not `import()`: esbuild
 * keeps an `import()` of an external file as Node's ESM loader, which the extension host's
 * own loader (that supplies `vscode` to the module) does not see.
 */
export function loadLanguageClient(): LanguageClientModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded late on purpose (above)
  loaded ??= require('vscode-languageclient/node') as LanguageClientModule;
  return loaded;
}

/** Whether `error` is the language client's ResponseError (none exists before it is loaded). */
export function isResponseError(error: unknown): error is ResponseError<unknown> {
  return loaded !== undefined && error instanceof loaded.ResponseError;
}
