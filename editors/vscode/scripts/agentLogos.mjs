// Writes each agent's own mark, from the `simple-icons` package (CC0; the marks belong to
// their owners and name the agent), as out/media/agents/<agent>-{light,dark}.svg: one
// colour each, the grey of VS Code's own icons on a light and on a dark theme, since a
// TreeItem's image icon cannot take the theme's colour itself. Which agent has which
// icon is src/agentLogos.json (sessionAgents.ts reads it too); an agent simple-icons has
// no mark for keeps a codicon. Generated, never committed: the .vsix packs out/media.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as simpleIcons from 'simple-icons';

/** VS Code's icon foreground in its default light and dark themes. */
export const THEME_COLOURS = { light: '#424242', dark: '#C5C5C5' };

/** simple-icons' export of a slug: `siGooglegemini` for `googlegemini`. */
function iconOf(slug) {
  const icon = simpleIcons[`si${slug.charAt(0).toUpperCase()}${slug.slice(1)}`];
  if (icon === undefined) {
    throw new Error(`simple-icons ${slug}: no such icon in this version (src/agentLogos.json)`);
  }
  return icon;
}

function escapeXml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The 16-pixel SVG of `icon` in one colour. */
export function logoSvg(icon, colour) {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24" fill="${colour}">` +
    `<title>${escapeXml(icon.title)}</title><path d="${icon.path}"/></svg>\n`
  );
}

/** Writes every agent's logo under `root`/out/media/agents; returns the files written. */
export async function writeAgentLogos(root) {
  const logos = JSON.parse(await readFile(path.join(root, 'src', 'agentLogos.json'), 'utf8'));
  const folder = path.join(root, 'out', 'media', 'agents');
  // Afresh: a logo left from an agent no longer listed would go into the .vsix.
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  const written = [];
  for (const [agent, slug] of Object.entries(logos)) {
    const icon = iconOf(slug);
    for (const [theme, colour] of Object.entries(THEME_COLOURS)) {
      const file = path.join(folder, `${agent}-${theme}.svg`);
      await writeFile(file, logoSvg(icon, colour));
      written.push(file);
    }
  }
  return written;
}
