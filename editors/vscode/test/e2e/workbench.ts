/** Driving the VS Code workbench in the browser: the Plan view, the palette, quick inputs. */
import type { Locator, Page } from 'playwright-core';
import { until } from './wait';

export interface Row {
  readonly label: string;
  readonly description: string;
  /** The codicon of the item, e.g. `sync`, `pass-filled`. */
  readonly icon: string;
  readonly spinning: boolean;
  /** The CSS colour the icon is drawn with ('' when the theme's default). */
  readonly iconColor: string;
  readonly level: number;
  readonly expanded: string | null;
  /** The decoration badge at the row's end (a task's priority), '' when none. */
  readonly badge: string;
  /** The colour the label is drawn in. */
  readonly labelColor: string;
  /** A task's checkbox: 'true' checked, 'false' not, '' none. */
  readonly checkbox: string;
}

const SIDEBAR = '.part.sidebar';
const PLAN_CONTAINER = `${SIDEBAR} #workbench\\.view\\.extension\\.plansight`;
const ROWS = `${PLAN_CONTAINER} .monaco-list-row`;
const QUICK_INPUT = '.quick-input-widget';

export class Workbench {
  constructor(readonly page: Page) {}

  /** Waits for the workbench and its Plansight icon, and opens the Plansight panel. */
  /**
   * Shows the Plansight panel; true when it had to ask for it. `askAfterMs`: how long the
   * workbench may take to show it by itself (a window restored with the panel open) before
   * the test asks for it.
   */
  async openPlansight(askAfterMs = 0): Promise<boolean> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    const button = this.page.locator('.part.activitybar .action-label[aria-label^="Plansight"]');
    await button.waitFor({ timeout: 60_000 });
    const container = this.page.locator(PLAN_CONTAINER);
    // "View: Show Plansight" opens the panel and never closes it. A click on the activity bar
    // icon toggles: after a reload the workbench restores its sidebar late, on a loaded
    // machine, and a click that lands on the container being restored closes it.
    const since = Date.now();
    let asked = 0;
    await until(
      'the Plansight panel',
      async () => {
        if (await container.isVisible()) {
          return true;
        }
        if (Date.now() - since >= askAfterMs && Date.now() - asked > 10_000) {
          asked = Date.now();
          await this.runCommand('View: Show Plansight').catch(() => this.page.keyboard.press('Escape'));
        }
        return false;
      },
      90_000,
    );
    return asked > 0;
  }

  get sidebar(): Locator {
    return this.page.locator(SIDEBAR);
  }

  /**
   * The rows as a person sees them, top first. VS Code's list can hold two elements for one
   * row for a moment as it redraws (seen as a new session came in: the element replaced and
   * the new one, both at index 0, at the same place, one painted over the other): one row
   * on screen, so the last of each index, the one on top, is read. A row the tree holds
   * twice has two indexes and reads twice. Sticky scroll's copy of a parent row (its own
   * element, same index) is read only when the row itself is scrolled out of the list.
   */
  async rows(): Promise<Row[]> {
    return this.page.$$eval(ROWS, (found) => {
      const sticky = (row: Element): boolean => row.classList.contains('monaco-tree-sticky-row');
      const byIndex = new Map<string, Element>();
      for (const row of found) {
        const index = row.getAttribute('data-index') ?? `unindexed-${byIndex.size}`;
        const held = byIndex.get(index);
        if (held === undefined || sticky(held) || !sticky(row)) {
          byIndex.set(index, row); // a later element is drawn over the earlier one
        }
      }
      const elements = [...byIndex.values()].sort((a, b) => Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index')));
      return elements.map((row) => {
        const icon = row.querySelector<HTMLElement>('.custom-view-tree-node-item-icon');
        const codicon = [...(icon?.classList ?? [])].find((c) => c.startsWith('codicon-') && c !== 'codicon-modifier-spin') ?? '';
        // An agent's own logo is an image: `agent:<name>` from its file, out/media/agents/<name>-<theme>.svg
        // (the URL's path percent-encoded in code-server's remote resource URL).
        const agent = /out\/media\/agents\/([\w-]+)-(?:light|dark)\.svg/.exec(decodeURIComponent(icon?.style.backgroundImage ?? ''))?.[1];
        return {
          label: row.querySelector('.label-name')?.textContent ?? '',
          description: row.querySelector('.label-description')?.textContent ?? '',
          icon: agent === undefined ? codicon.replace(/^codicon-/, '') : `agent:${agent}`,
          spinning: icon?.classList.contains('codicon-modifier-spin') ?? false,
          iconColor: icon?.style.color ?? '',
          level: Number(row.getAttribute('aria-level')),
          expanded: row.getAttribute('aria-expanded'),
          // A file decoration's badge is drawn as the label's ::after content.
          badge: (() => {
            const label = row.querySelector('.monaco-icon-label');
            const content = label === null ? 'none' : getComputedStyle(label, '::after').content;
            return content === 'none' || content === 'normal' ? '' : content.replace(/^"|"$/g, '');
          })(),
          labelColor: (() => {
            const name = row.querySelector('.label-name');
            return name === null ? '' : getComputedStyle(name).color;
          })(),
          checkbox: (() => {
            const box = row.querySelector('.custom-view-tree-node-item-checkbox');
            if (box === null) {
              return '';
            }
            return box.getAttribute('aria-checked') ?? box.querySelector('[aria-checked]')?.getAttribute('aria-checked') ?? (box.classList.contains('checked') ? 'true' : 'false');
          })(),
        };
      });
    });
  }

  /** Waits until the Plan view shows rows that satisfy the check; returns them. */
  async waitForRows(what: string, check: (rows: Row[]) => boolean, timeoutMs = 15_000): Promise<Row[]> {
    let last: Row[] = [];
    try {
      return await until(
        what,
        async () => {
          last = await this.rows();
          return check(last) ? last : undefined;
        },
        timeoutMs,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\nRows: ${JSON.stringify(last, null, 1)}`);
    }
  }

  row(label: string): Locator {
    return this.page.locator(ROWS).filter({ has: this.page.locator('.label-name', { hasText: label }) });
  }

  /** The Plan view's message above its rows ('' when none shows). */
  async viewMessage(): Promise<string> {
    const message = this.page.locator(`${PLAN_CONTAINER} .message`).first();
    return (await message.count()) > 0 && (await message.isVisible()) ? ((await message.textContent()) ?? '').trim() : '';
  }

  /** The value an open input box holds, once its prompt says `prompt`. */
  async inputValue(prompt: string): Promise<string> {
    const widget = this.page.locator(QUICK_INPUT);
    const message = widget.locator('.quick-input-message');
    await until(`an input box asking "${prompt}"`, async () => (await widget.isVisible()) && ((await message.textContent()) ?? '').includes(prompt));
    return widget.locator('.quick-input-box input').inputValue();
  }

  /** The welcome content of the Plan view (shown when there is no plan). */
  welcome(): Locator {
    return this.page.locator(`${PLAN_CONTAINER} .welcome-view-content`);
  }

  async statusBarText(): Promise<string | undefined> {
    const item = this.page.locator('.part.statusbar [id="plansight.plansight.plansight.status"]');
    return (await item.count()) > 0 && (await item.isVisible()) ? ((await item.textContent()) ?? '').trim() : undefined;
  }

  /** The activity bar badge of the Plansight panel ('' when none). */
  async badge(): Promise<string> {
    const item = this.page.locator('.part.activitybar .action-item').filter({ has: this.page.locator('[aria-label^="Plansight"]') });
    const badge = item.locator('.badge-content');
    return (await badge.count()) > 0 && (await badge.isVisible()) ? ((await badge.textContent()) ?? '').trim() : '';
  }

  /** The view's description, read from its header (hidden when the view is alone in its container). */
  async viewHeaderLabel(): Promise<string> {
    return (await this.page.locator(`${PLAN_CONTAINER} .pane-header`).first().getAttribute('aria-label')) ?? '';
  }

  /** The title of the side bar: the container's, with the view's when it is alone there. */
  async sidebarTitle(): Promise<string> {
    return ((await this.page.locator(`${SIDEBAR} .composite.title .title-label`).first().textContent()) ?? '').trim();
  }

  /** Runs a command from the command palette by its full title. */
  async runCommand(title: string): Promise<void> {
    await this.page.keyboard.press('F1');
    const input = this.page.locator(`${QUICK_INPUT} .quick-input-box input`);
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    const first = this.page.locator(`${QUICK_INPUT} .monaco-list-row`).first();
    await until(`the palette to offer "${title}"`, async () => ((await first.getAttribute('aria-label')) ?? '').startsWith(title));
    await input.press('Enter');
  }

  /** Waits for the input box whose prompt says `prompt`, types `text` and accepts it. */
  async answer(prompt: string, text: string): Promise<void> {
    const widget = this.page.locator(QUICK_INPUT);
    const message = widget.locator('.quick-input-message');
    await until(`an input box asking "${prompt}"`, async () => (await widget.isVisible()) && ((await message.textContent()) ?? '').includes(prompt));
    await this.fillAndAccept(text);
  }

  /** Waits for the quick pick whose placeholder is `placeholder` and picks `label` in it. */
  async pick(placeholder: string, label: string): Promise<void> {
    const widget = this.page.locator(QUICK_INPUT);
    const input = widget.locator('.quick-input-box input');
    await until(`a quick pick "${placeholder}"`, async () => (await widget.isVisible()) && (await input.getAttribute('placeholder')) === placeholder);
    await input.fill(label);
    const first = widget.locator('.monaco-list-row').first();
    await until(`the quick pick to offer "${label}"`, async () => ((await first.getAttribute('aria-label')) ?? '').includes(label));
    await input.press('Enter');
  }

  /** Waits for the multi-select quick pick `placeholder`, checks each of `labels` and accepts. */
  async pickMany(placeholder: string, labels: readonly string[]): Promise<void> {
    const widget = this.page.locator(QUICK_INPUT);
    const input = widget.locator('.quick-input-box input');
    await until(`a quick pick "${placeholder}"`, async () => (await widget.isVisible()) && (await input.getAttribute('placeholder')) === placeholder);
    for (const label of labels) {
      await input.fill(label);
      const first = widget.locator('.monaco-list-row').first();
      await until(`the quick pick to offer "${label}"`, async () => ((await first.getAttribute('aria-label')) ?? '').includes(label));
      // A click on an item's label toggles its checkbox.
      await first.locator('.quick-input-list-label').first().click();
      await until(`"${label}" to be checked`, async () => (await first.getAttribute('aria-checked')) === 'true' || (await first.locator('.monaco-custom-toggle.checked').count()) > 0);
    }
    await input.fill('');
    await input.press('Enter');
  }

  /** The text of the modal dialog, once it shows. */
  async dialogText(): Promise<string> {
    const box = this.page.locator('.monaco-dialog-box');
    await box.waitFor({ state: 'visible' });
    return (await box.textContent()) ?? '';
  }

  /** The labels of the open editor tabs. */
  async tabs(): Promise<string[]> {
    return this.page.$$eval('.tabs-container .tab', (tabs) => tabs.map((tab) => tab.getAttribute('aria-label') ?? ''));
  }

  private async fillAndAccept(text: string): Promise<void> {
    const input = this.page.locator(`${QUICK_INPUT} .quick-input-box input`);
    await input.fill(text);
    await until(`the input to hold "${text}"`, async () => (await input.inputValue()) === text);
    await input.press('Enter');
  }

  /** The lines of the active editor, in order, spaces as spaces. */
  async editorLines(): Promise<string[]> {
    return this.page.$$eval('.editor-instance .monaco-editor .view-lines .view-line', (lines) =>
      lines
        .map((line) => ({ top: parseFloat((line as HTMLElement).style.top), text: line.textContent.replace(/\u00a0/g, ' ') }))
        .sort((a, b) => a.top - b.top)
        .map((line) => line.text),
    );
  }

  /** Expands a collapsed row of the Plan view. */
  async expand(label: string): Promise<void> {
    const row = this.row(label);
    if ((await row.getAttribute('aria-expanded')) === 'false') {
      await row.locator('.monaco-tl-twistie').click();
    }
  }

  /** Collapses an expanded row of the Plan view (a click that lands as the row is redrawn is tried again). */
  async collapse(label: string): Promise<void> {
    const row = this.row(label);
    for (let attempt = 0; ; attempt++) {
      if ((await row.getAttribute('aria-expanded')) === 'false') {
        return;
      }
      await this.calmPointer();
      await row.locator('.monaco-tl-twistie').click();
      try {
        await until(`"${label}" to collapse`, async () => (await row.getAttribute('aria-expanded')) === 'false', 3_000);
        return;
      } catch (error) {
        if (attempt >= 4) {
          throw error;
        }
      }
    }
  }

  /** The text of the active editor, spaces as spaces. */
  async editorText(): Promise<string> {
    const lines = this.page.locator('.editor-instance .monaco-editor .view-lines').first();
    return ((await lines.count()) > 0 ? ((await lines.textContent()) ?? '') : '').replace(/\u00a0/g, ' ');
  }

  /** Right-clicks a row of the Plan view and chooses a context menu item. */
  async contextMenu(rowLabel: string, item: string): Promise<void> {
    await this.calmPointer();
    await this.row(rowLabel).click({ button: 'right' });
    const menu = this.page.locator('.monaco-menu');
    const entry = menu.locator('.action-item', { has: this.page.locator('.action-label', { hasText: item }) }).first();
    await entry.waitFor({ state: 'visible' });
    // A click that lands while the menu is still settling is dropped: focus the entry with
    // the mouse, then run it from the keyboard, which the menu always honours.
    await entry.hover();
    await until(`the menu entry "${item}" to take focus`, async () => ((await entry.getAttribute('class')) ?? '').includes('focused'));
    await this.page.keyboard.press('Enter');
    await menu.first().waitFor({ state: 'hidden' });
  }

  /** Drags the side bar's edge to make it `width` pixels wide (for a legible screenshot). */
  async widenSidebar(width: number): Promise<void> {
    const box = await this.sidebar.boundingBox();
    if (box === null) {
      return;
    }
    const edge = box.x + box.width;
    await this.page.mouse.move(edge, box.y + box.height / 2);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, box.y + box.height / 2, { steps: 5 });
    await this.page.mouse.up();
    await until('the side bar to widen', async () => ((await this.sidebar.boundingBox())?.width ?? 0) >= width - 2);
  }

  /** The side bar's width in pixels. */
  async sidebarWidth(): Promise<number> {
    return (await this.sidebar.boundingBox())?.width ?? 0;
  }

  /** Drags the side bar's edge back to `width` pixels (narrower than now). */
  async narrowSidebar(width: number): Promise<void> {
    const box = await this.sidebar.boundingBox();
    if (box === null || box.width <= width + 1) {
      return;
    }
    await this.page.mouse.move(box.x + box.width, box.y + box.height / 2);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, box.y + box.height / 2, { steps: 5 });
    await this.page.mouse.up();
    await until('the side bar to narrow', async () => Math.abs((await this.sidebarWidth()) - width) <= 2);
  }

  /** The labels of the open quick pick's rows, in the list's order, once its placeholder is `placeholder`. */
  async quickPickLabels(placeholder: string): Promise<string[]> {
    const widget = this.page.locator(QUICK_INPUT);
    const input = widget.locator('.quick-input-box input');
    const rows = widget.locator('.monaco-list-row');
    await until(`a quick pick "${placeholder}"`, async () => (await widget.isVisible()) && (await input.getAttribute('placeholder')) === placeholder && (await rows.count()) > 0);
    // The list reuses its row elements: their order in the page is not the list's.
    return (await rows.evaluateAll((found) => found.map((row): [number, string] => [Number(row.getAttribute('data-index')), (row.querySelector('.label-name')?.textContent ?? '').trim()])))
      .sort(([a], [b]) => a - b)
      .map(([, label]) => label);
  }

  /**
   * The image a row's icon draws (a TreeItem's iconPath Uri is the icon's CSS background-image):
   * the SVG's <title> as the page loaded it, and its width once decoded (0: not drawn).
   */
  async rowIconImage(label: string): Promise<{ title: string; width: number }> {
    const row = this.page.locator(ROWS).filter({ has: this.page.locator('.label-name', { hasText: label }) }).first();
    const url = await row.locator('.custom-view-tree-node-item-icon').evaluate((icon) => /url\("?([^")]+)"?\)/.exec((icon as HTMLElement).style.backgroundImage)?.[1] ?? '');
    return this.page.evaluate(async (src) => {
      if (src === '') {
        return { title: '', width: 0 };
      }
      const svg = await (await fetch(src)).text();
      const image = new Image();
      image.src = src;
      await image.decode().catch(() => undefined);
      return { title: /<title>([^<]*)<\/title>/.exec(svg)?.[1] ?? '', width: image.naturalWidth };
    }, url);
  }

  /**
   * The icon of each row of the open quick pick `placeholder`, by label: `agent:<name>` for an
   * agent's logo (an iconPath Uri is the icon's background-image), else its codicon, '' none.
   */
  async quickPickIcons(placeholder: string): Promise<Map<string, string>> {
    await this.quickPickLabels(placeholder);
    const rows = this.page.locator(`${QUICK_INPUT} .monaco-list-row`);
    const icons = await rows.evaluateAll((found) =>
      found.map((row): [string, string] => {
        const icon = row.querySelector<HTMLElement>('.quick-input-list-icon');
        const agent = /out\/media\/agents\/([\w-]+)-(?:light|dark)\.svg/.exec(decodeURIComponent(icon?.style.backgroundImage ?? ''))?.[1];
        const codicon = [...(icon?.classList ?? [])].find((c) => c.startsWith('codicon-')) ?? '';
        return [(row.querySelector('.label-name')?.textContent ?? '').trim(), agent === undefined ? codicon.replace(/^codicon-/, '') : `agent:${agent}`];
      }),
    );
    return new Map(icons);
  }

  /** Moves the mouse off the view so no item's tooltip covers the row to click next. */
  async calmPointer(): Promise<void> {
    await this.page.mouse.move(900, 700);
    await this.page.locator('.workbench-hover-container, .monaco-hover:not(.hidden)').first().waitFor({ state: 'hidden' }).catch(() => undefined);
  }

  /** Accepts VS Code's own save dialog (a quick input in the browser) once it proposes `file`. */
  async acceptSaveDialog(file: string): Promise<void> {
    const input = this.page.locator(`${QUICK_INPUT} .quick-input-box input`);
    await until(`the save dialog to propose ${file}`, async () => (await input.isVisible()) && (await input.inputValue()) === file);
    await input.press('Enter');
  }

  /** Clicks a button of the modal dialog. */
  async dialogButton(label: string): Promise<void> {
    const button = this.page.locator('.monaco-dialog-box .monaco-button', { hasText: label }).first();
    await button.waitFor({ state: 'visible' });
    await button.click();
  }
}
