/**
 * Where a plan's markdown lives for the editor: `<scheme>:/<title>.md?session=<session>`.
 * The tab and the breadcrumbs show the path, so a person reads the plan's title
 * (sessionTitles.ts), never a raw session id; the query carries the session.
 */
import * as vscode from 'vscode';
import { sessionTitle } from './sessionTitles';

/** A title as a file name: no folder separators, not longer than a tab can show. */
function fileName(name: string): string {
  const clean = name.replace(/[/\\]/g, '-').replace(/\s+/g, ' ').trim();
  return clean.length <= 60 ? clean : `${clean.slice(0, 59)}…`;
}

/** `fresh`: a query part that changes per call, so the editor asks the provider again. */
export function planUri(scheme: string, session: string, title?: string | null, fresh?: string): vscode.Uri {
  const query = `session=${encodeURIComponent(session)}${fresh === undefined ? '' : `&at=${fresh}`}`;
  return vscode.Uri.from({ scheme, path: `/${fileName(sessionTitle(session, title))}.md`, query });
}

/** The session of a plan's URI; `/<session>.md`, the form before titles, is still read (restored tabs). */
export function sessionOfUri(uri: vscode.Uri): string {
  const session = new URLSearchParams(uri.query).get('session');
  return session ?? uri.path.replace(/^\//, '').replace(/\.md$/, '');
}
