/**
 * The Plan view's TreeView, made when the extension host evaluates the bundle instead of in
 * activate() (issue 33, item 12). Between the two the host fetches the extension's context
 * (its workspaceState and globalState, from the workbench) while it loads the extensions
 * that start beside this one: 0.3 to 1 s on a loaded machine. Made early, the workbench has
 * the view's provider by then and asks for its rows at once; the question waits here and is
 * answered the moment activate() gives the real provider (which already holds the plans last
 * seen), instead of a round trip between the workbench and the host after activate().
 * When the bundle found the plans last seen in their file (lastSeenRows.ts), it answers with
 * their rows at once instead, before activate(), and tells the real provider what it gave.
 */
import * as vscode from 'vscode';

/** What activate() gives: the view's real provider. */
export type TreeProvider<T> = vscode.TreeDataProvider<T> & { readonly onDidChangeTreeData: vscode.Event<T | T[] | undefined> };

export interface EarlyTreeViewOptions {
  /** The drag and drop controller's mime types (VS Code reads them once, at creation). */
  readonly dragMimeTypes: readonly string[];
  readonly dropMimeTypes: readonly string[];
  readonly showCollapseAll: boolean;
  readonly canSelectMany: boolean;
  readonly manageCheckboxStateManually: boolean;
}

/** Rows to give before activate() (the plans last seen, from their file). */
export interface FirstRows<T> {
  getChildren(element?: T): T[];
  getTreeItem(element: T): vscode.TreeItem;
}

/** What the view gave VS Code before activate(): the real provider takes it over. */
export interface GivenEarly<T> {
  /** The rows whose children VS Code asked for, in order (undefined: the top rows). */
  readonly asked: readonly (T | undefined)[];
  /** Every row given: VS Code knows each by this object. */
  readonly given: readonly T[];
  /** When the top rows were given (ms since the epoch), if they were. */
  readonly topGivenAt: number | undefined;
}

export class EarlyTreeView<T> implements vscode.TreeDataProvider<T>, vscode.TreeDragAndDropController<T> {
  readonly treeView: vscode.TreeView<T>;
  readonly dragMimeTypes: readonly string[];
  readonly dropMimeTypes: readonly string[];
  private readonly changeEmitter = new vscode.EventEmitter<T | T[] | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private provider: TreeProvider<T> | undefined;
  private controller: vscode.TreeDragAndDropController<T> | undefined;
  private readonly provided: Promise<TreeProvider<T>>;
  private resolveProvided: ((provider: TreeProvider<T>) => void) | undefined;

  private first: FirstRows<T> | undefined;
  private readonly asked: (T | undefined)[] = [];
  private readonly given: T[] = [];
  private topGivenAt: number | undefined;
  /** When the workbench first asked for the top rows (ms since the epoch): the start's timings. */
  private topAskedAt: number | undefined;

  constructor(viewId: string, options: EarlyTreeViewOptions, first?: FirstRows<T>) {
    this.first = first;
    this.dragMimeTypes = options.dragMimeTypes;
    this.dropMimeTypes = options.dropMimeTypes;
    this.provided = new Promise((resolve) => {
      this.resolveProvided = resolve;
    });
    this.treeView = vscode.window.createTreeView(viewId, {
      treeDataProvider: this,
      showCollapseAll: options.showCollapseAll,
      canSelectMany: options.canSelectMany,
      manageCheckboxStateManually: options.manageCheckboxStateManually,
      dragAndDropController: this,
    });
  }

  /** Gives the view its real provider and drag and drop controller: the rows asked for meanwhile follow. */
  provide(provider: TreeProvider<T>, controller: vscode.TreeDragAndDropController<T> | undefined): vscode.Disposable {
    this.provider = provider;
    this.controller = controller;
    const forwarding = provider.onDidChangeTreeData((change) => this.changeEmitter.fire(change ?? undefined));
    this.resolveProvided?.(provider);
    this.resolveProvided = undefined;
    return vscode.Disposable.from(forwarding, this.changeEmitter);
  }

  /** What was given before the real provider came (once: it is then the provider's). */
  handOver(): GivenEarly<T> {
    this.first = undefined;
    return { asked: [...this.asked], given: [...this.given], topGivenAt: this.topGivenAt };
  }

  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    if (this.provider !== undefined) {
      return this.provider.getTreeItem(element);
    }
    // VS Code asks only of rows getChildren gave: the first rows', or the real provider's.
    return this.first !== undefined ? this.first.getTreeItem(element) : this.provided.then((provider) => provider.getTreeItem(element));
  }

  /** When the workbench first asked for the top rows, if it has. */
  get firstAskedAt(): number | undefined {
    return this.topAskedAt;
  }

  getChildren(element?: T): vscode.ProviderResult<T[]> {
    if (element === undefined) {
      this.topAskedAt ??= Date.now();
    }
    if (this.provider !== undefined) {
      return this.provider.getChildren(element);
    }
    if (this.first !== undefined) {
      const children = this.first.getChildren(element);
      this.asked.push(element);
      this.given.push(...children);
      if (element === undefined) {
        this.topGivenAt ??= Date.now();
      }
      return children;
    }
    return this.provided.then((provider) => provider.getChildren(element));
  }

  getParent(element: T): vscode.ProviderResult<T> {
    return this.provider?.getParent?.(element);
  }

  handleDrag(source: readonly T[], dataTransfer: vscode.DataTransfer, token: vscode.CancellationToken): Thenable<void> | void {
    return this.controller?.handleDrag?.(source, dataTransfer, token);
  }

  handleDrop(target: T | undefined, dataTransfer: vscode.DataTransfer, token: vscode.CancellationToken): Thenable<void> | void {
    return this.controller?.handleDrop?.(target, dataTransfer, token);
  }
}
