/**
 * Turns the sessions' TodoStates into the nodes of the Plan view and says how each node
 * looks (label, icon, description, tooltip). Pure: no `vscode` import, so the unit tests
 * run it in plain Node. `planView.ts` only copies these values onto TreeItems.
 */
import { filtering, taskShown, type ViewFilter } from './planFilter';
import { isFinished, remainingOf, type Checkout, type Phase, type Priority, type Task, type TaskStatus, type TodoState } from './protocol';
import { sessionAgent, sessionIcon, untitledSessionLabel } from './sessionAgents';

export type PlanNode = SessionNode | PhaseNode | TaskNode | NoteNode | FileNode;

interface NodeBase {
  /** Stable across refreshes: built from the session name, phase name and task id. */
  readonly id: string;
  readonly session: string;
  readonly parentId: string | undefined;
}

export interface SessionNode extends NodeBase {
  readonly kind: 'session';
  readonly state: TodoState;
  /** How the row starts the first time it is drawn (VS Code keeps what the person does after). */
  readonly expanded: boolean;
  /** Emptied by Clear Todos and kept in sight, so Undo Last Change is one click away. */
  readonly cleared: boolean;
  /** (v4) The checkout of its last agent change (null: none known). */
  readonly checkout: Checkout | null;
}

export interface PhaseNode extends NodeBase {
  readonly kind: 'phase';
  readonly name: string;
  readonly phase: Phase;
}

export interface TaskNode extends NodeBase {
  readonly kind: 'task';
  readonly task: Task;
  readonly phase: string;
  /** The contents of the unfinished tasks it waits for, in `blockedBy` order (server's `waiting`). */
  readonly waitsFor: readonly string[];
  /** Its owner, shown only when the session's tasks do not all share one. */
  readonly shownOwner: string | undefined;
  /** (v4) Its place among the session's leaves, from 1 (undefined for a parent), and their count. */
  readonly position: number | undefined;
  readonly leaves: number;
  /** (v4) Its subtasks' leaves: how many there are and how many are completed (total 0: a leaf). */
  readonly subtasks: { readonly completed: number; readonly total: number };
}

/** A path the task changed while it was in progress, relative to its session's checkout. */
export interface FileNode extends NodeBase {
  readonly kind: 'file';
  readonly task: Task;
  readonly path: string;
  /** The session's linked worktree the path is relative to (null: the main working tree). */
  readonly worktree: string | null;
}

export interface NoteNode extends NodeBase {
  readonly kind: 'note';
  readonly task: Task;
  readonly index: number;
  readonly text: string;
}

/** Codicon id and optional theme colour id; or (`agent`) one of the agents' own logos. */
export interface Icon {
  /** A codicon; with `agent`, the agent's logo (sessionAgents.ts: logoPaths). */
  readonly id: string;
  readonly color?: string;
  readonly agent?: true;
}

/** How one node is drawn: everything a TreeItem needs, as plain data. */
export interface NodeView {
  readonly label: string;
  readonly description?: string;
  /** Markdown, with every piece of agent text escaped: render it untrusted. */
  readonly tooltip: string;
  /** A file node's workspace-relative path: the view turns it into a resource and a click opens it. */
  readonly file?: string;
  /** A file node's worktree (see `FileNode`): `file` is relative to it. */
  readonly worktree?: string | null;
  readonly icon: Icon;
  /** The `viewItem` of the menus in package.json: the node's kind, and a task's status. */
  readonly contextValue: string;
  readonly collapsible: 'none' | 'collapsed' | 'expanded';
  /**
   * A task's `plansight-task:` URI: the view sets it as the item's resourceUri so the
   * decoration provider draws the priority mark (which survives a narrow sidebar, unlike
   * trailing text) and dims a finished row. The facts are in the URI: a change of status
   * or priority is a new URI, redrawn without an event.
   */
  readonly decoration?: string;
  /** A task's checkbox: checked when it is completed (undefined: no checkbox). */
  readonly checked?: boolean;
}

/** A pending task whose dependencies are unfinished: it cannot start yet. */
export const WAITING_ICON: Icon = { id: 'watch' };

/**
 * The pending circle is the large outline, the size of the other icons (the small one looks
 * like a bullet). The check is `charts.green`: a dark green on light themes and a light one
 * on dark themes (`testing.iconPassed` is the same pale green on both, faint on white).
 */
export const TASK_ICONS: Readonly<Record<TaskStatus, Icon>> = {
  pending: { id: 'circle-large-outline' },
  in_progress: { id: 'sync~spin' },
  completed: { id: 'pass-filled', color: 'charts.green' },
  abandoned: { id: 'circle-slash', color: 'disabledForeground' },
  blocked: { id: 'debug-pause', color: 'problemsWarningIcon.foreground' },
};

/** Priority as a one-character decoration badge at the row's end, where a narrow sidebar keeps it. */
export const PRIORITY_BADGES: Readonly<Record<Priority, string>> = {
  high: '↑',
  medium: '–',
  low: '↓',
};

/** The codicon of each priority in the pickers. */
export const PRIORITY_ICONS: Readonly<Record<Priority, string>> = {
  high: 'arrow-up',
  medium: 'dash',
  low: 'arrow-down',
};

/** The colour a finished (completed or dropped) row's label is dimmed with. */
export const FINISHED_COLOR = 'list.deemphasizedForeground';

const STATUS_WORDS: Readonly<Record<TaskStatus, string>> = {
  pending: 'pending',
  in_progress: 'in progress',
  completed: 'completed',
  abandoned: 'abandoned',
  blocked: 'blocked',
};

/** What a tree is built from besides the states. */
export interface TreeOptions {
  /** Sessions emptied by the person and kept in sight (Clear Todos), drawn as cleared rows. */
  readonly kept?: ReadonlySet<string>;
  /** Whether a session row starts expanded; by default only the first. */
  readonly expanded?: (session: string, index: number) => boolean;
  /** (v4) Each session's checkout, from `plansight/sessions` (a TodoState has none). */
  readonly checkouts?: ReadonlyMap<string, Checkout | null>;
  /** What the view hides (Hide Finished, the person's filter); by default nothing. */
  readonly view?: ViewFilter;
}

export interface ViewOptions {
  /** Formats an ISO 8601 time for tooltips; the view passes the user's locale. */
  readonly formatTime?: (iso: string) => string;
}

/** The whole tree for a set of sessions; find nodes by id and walk to parents and children. */
export class PlanTree {
  readonly roots: readonly PlanNode[];
  private readonly nodes = new Map<string, PlanNode>();
  private readonly children = new Map<string, PlanNode[]>();

  private readonly checkouts: ReadonlyMap<string, Checkout | null>;
  private readonly view: ViewFilter;
  /** The tasks drawn and the tasks the shown sessions hold: the view's message while it filters. */
  private shown = 0;
  private total = 0;

  private constructor(states: readonly TodoState[], options: TreeOptions) {
    this.checkouts = options.checkouts ?? new Map<string, Checkout | null>();
    this.view = options.view ?? { hideFinished: false };
    const kept = options.kept ?? new Set<string>();
    const expanded = options.expanded ?? ((_session: string, index: number) => index === 0);
    const shown = states.filter((state) => state.progress.total > 0 || kept.has(state.session));
    const only = shown.length === 1 ? shown[0] : undefined;
    if (only !== undefined && only.progress.total > 0) {
      this.roots = this.addSessionContent(only, undefined);
    } else {
      this.roots = shown.flatMap((state, index) => {
        // While filtered, a session with no task to show leaves (its tasks still count).
        const tasks = state.phases.flatMap((phase) => phase.tasks);
        if (filtering(this.view) && tasks.length > 0 && !tasks.some((task) => taskShown(task, this.view))) {
          this.total += tasks.length;
          return [];
        }
        return [this.addSession(state, expanded(state.session, index))];
      });
    }
  }

  /**
   * Builds the tree, sessions in the order given (PlanState keeps it stable); sessions
   * without a task are left out, unless kept.
   */
  static build(states: readonly TodoState[], options: TreeOptions = {}): PlanTree {
    return new PlanTree(states, options);
  }

  get isEmpty(): boolean {
    return this.roots.length === 0;
  }

  /** How many tasks the tree draws, of how many its sessions hold (they differ while filtered). */
  get counts(): { readonly shown: number; readonly total: number } {
    return { shown: this.shown, total: this.total };
  }

  /** How many rows the tree holds, drawn or under a folded row. */
  get size(): number {
    return this.nodes.size;
  }

  getNode(id: string): PlanNode | undefined {
    return this.nodes.get(id);
  }

  childrenOf(node: PlanNode | undefined): readonly PlanNode[] {
    return node === undefined ? this.roots : (this.children.get(node.id) ?? []);
  }

  parentOf(node: PlanNode): PlanNode | undefined {
    return node.parentId === undefined ? undefined : this.nodes.get(node.parentId);
  }

  /** The node of a session's task, by task id. */
  taskNode(session: string, taskId: string): TaskNode | undefined {
    const node = this.nodes.get(taskNodeId(session, taskId));
    return node?.kind === 'task' ? node : undefined;
  }

  private add<T extends PlanNode>(node: T): T {
    this.nodes.set(node.id, node);
    if (node.parentId !== undefined) {
      const siblings = this.children.get(node.parentId) ?? [];
      siblings.push(node);
      this.children.set(node.parentId, siblings);
    }
    return node;
  }

  private addSession(state: TodoState, expanded: boolean): SessionNode {
    const node = this.add<SessionNode>({
      kind: 'session',
      id: sessionNodeId(state.session),
      session: state.session,
      parentId: undefined,
      state,
      expanded,
      cleared: state.progress.total === 0,
      checkout: this.checkouts.get(state.session) ?? null,
    });
    this.addSessionContent(state, node.id);
    return node;
  }

  /** A session's phases, or the tasks of its lone phase directly (its name is in their tooltips). */
  private addSessionContent(state: TodoState, parentId: string | undefined): PlanNode[] {
    const context = sessionContext(state, this.view);
    const only = state.phases.length === 1 ? state.phases[0] : undefined;
    if (only !== undefined) {
      return this.addTasks(state.session, only, parentId, context);
    }
    const seen = new Map<string, number>();
    const nodes: PlanNode[] = [];
    for (const phase of state.phases) {
      // Phase names are unique in practice; a repeat still gets its own id.
      const count = (seen.get(phase.name) ?? 0) + 1;
      seen.set(phase.name, count);
      const id = phaseNodeId(state.session, count === 1 ? phase.name : `${phase.name}#${count}`);
      const shown = phase.tasks.filter((task) => context.shown.has(task.id));
      // While filtered, a phase with nothing to show goes with its tasks.
      if (filtering(this.view) && shown.length === 0) {
        this.total += phase.tasks.length;
        continue;
      }
      const node = this.add<PhaseNode>({ kind: 'phase', id, session: state.session, parentId, name: phase.name, phase });
      nodes.push(node);
      this.addTasks(state.session, phase, node.id, context);
    }
    return nodes;
  }

  /**
   * A phase's tasks under `parentId`, (v4) each subtask under its task: the tasks first,
   * in document order, then each task's files and notes after its subtasks.
   */
  private addTasks(session: string, phase: Phase, parentId: string | undefined, context: SessionContext): TaskNode[] {
    const top: TaskNode[] = [];
    const added: TaskNode[] = [];
    this.total += phase.tasks.length;
    for (const task of phase.tasks) {
      if (!context.shown.has(task.id)) {
        continue;
      }
      const parent = parentOf(task);
      const above = parent === null ? undefined : this.taskNode(session, parent);
      const node = this.addTask(session, phase.name, task, above?.id ?? parentId, context);
      added.push(node);
      this.shown += 1;
      if (above === undefined) {
        top.push(node);
      }
    }
    const worktree = this.checkouts.get(session)?.worktree ?? null;
    for (const node of added) {
      const { task } = node;
      task.files.forEach((file) => {
        this.add<FileNode>({ kind: 'file', id: `${node.id}/file:${encodeURIComponent(file)}`, session, parentId: node.id, task, path: file, worktree });
      });
      task.notes.forEach((text, index) => {
        this.add<NoteNode>({ kind: 'note', id: `${node.id}/note:${index}`, session, parentId: node.id, task, index, text });
      });
    }
    return top;
  }

  private addTask(session: string, phase: string, task: Task, parentId: string | undefined, context: SessionContext): TaskNode {
    const waitsFor = task.waiting ? task.blockedBy.map((id) => context.unfinished.get(id)).filter((content) => content !== undefined) : [];
    const shownOwner = context.severalOwners ? (task.owner ?? undefined) : undefined;
    const subtasks = context.subtasks.get(task.id) ?? { completed: 0, total: 0 };
    return this.add<TaskNode>({
      kind: 'task',
      id: taskNodeId(session, task.id),
      session,
      parentId,
      task,
      phase,
      waitsFor,
      shownOwner,
      position: context.position.get(task.id),
      leaves: context.position.size,
      subtasks,
    });
  }
}

interface SessionContext {
  /** Contents of the tasks neither completed nor abandoned, by id: what a waiting task names. */
  readonly unfinished: ReadonlyMap<string, string>;
  /** The tasks do not all have the same owner (no owner counts as one). */
  readonly severalOwners: boolean;
  /** The ids of the tasks drawn: those the view's filter keeps, and the parents of those. */
  readonly shown: ReadonlySet<string>;
  /** (v4) Each leaf's place among the session's leaves in document order, from 1. */
  readonly position: ReadonlyMap<string, number>;
  /** (v4) Each parent's leaves, completed and in all. */
  readonly subtasks: ReadonlyMap<string, { completed: number; total: number }>;
}

/** (v4) A task's parent id; a server before protocol 4 sends none. */
export function parentOf(task: Task): string | null {
  return (task as Partial<Pick<Task, 'parent'>>).parent ?? null;
}

function sessionContext(state: TodoState, view: ViewFilter): SessionContext {
  const tasks = state.phases.flatMap((phase) => phase.tasks);
  const unfinished = new Map(tasks.filter((task) => !isFinished(task.status)).map((task) => [task.id, task.content]));
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const ancestors = (task: Task): Task[] => {
    const found: Task[] = [];
    for (let parent = parentOf(task); parent !== null && found.length < tasks.length; ) {
      const above = byId.get(parent);
      if (above === undefined) {
        break;
      }
      found.push(above);
      parent = parentOf(above);
    }
    return found;
  };
  const parents = new Set(tasks.map(parentOf).filter((parent) => parent !== null && byId.has(parent)));
  const position = new Map<string, number>();
  const subtasks = new Map<string, { completed: number; total: number }>();
  const shown = new Set<string>();
  for (const task of tasks) {
    const lineage = ancestors(task);
    if (!parents.has(task.id)) {
      position.set(task.id, position.size + 1);
      for (const above of lineage) {
        const count = subtasks.get(above.id) ?? { completed: 0, total: 0 };
        count.total += 1;
        count.completed += task.status === 'completed' ? 1 : 0;
        subtasks.set(above.id, count);
      }
    }
    if (taskShown(task, view)) {
      shown.add(task.id);
      lineage.forEach((above) => shown.add(above.id));
    }
  }
  return { unfinished, severalOwners: new Set(tasks.map((task) => task.owner)).size > 1, shown, position, subtasks };
}

/** `waits for "Run the build"`, `waits for "A", "B"`: the server's summary wording. */
export function waitsForText(contents: readonly string[]): string {
  return `waits for ${contents.map((content) => `"${content}"`).join(', ')}`;
}

/** The row's short form: the one task by name, several by count (the tooltip names them all). */
export function waitsForShort(contents: readonly string[]): string {
  return contents.length === 1 ? waitsForText(contents) : `waits for ${contents.length} tasks`;
}

export function sessionNodeId(session: string): string {
  return `session:${encodeURIComponent(session)}`;
}

export function phaseNodeId(session: string, phase: string): string {
  return `${sessionNodeId(session)}/phase:${encodeURIComponent(phase)}`;
}

export function taskNodeId(session: string, taskId: string): string {
  return `${sessionNodeId(session)}/task:${encodeURIComponent(taskId)}`;
}

/** How a node is drawn. */
export function viewOf(node: PlanNode, options: ViewOptions = {}): NodeView {
  const formatTime = options.formatTime ?? ((iso: string) => iso);
  switch (node.kind) {
    case 'session':
      return sessionView(node);
    case 'phase':
      return phaseView(node);
    case 'task':
      return taskView(node, formatTime);
    case 'note':
      return noteView(node);
    case 'file':
      return fileView(node);
  }
}

/** A session's row: its title, else its agent and the start of its id (the tooltip has the key). */
export function sessionRowLabel(state: Pick<TodoState, 'session' | 'title'>): string {
  return state.title ?? untitledSessionLabel(state.session);
}

function sessionView(node: SessionNode): NodeView {
  const { state } = node;
  if (node.cleared) {
    return {
      label: sessionRowLabel(state),
      description: 'cleared',
      tooltip: `**${escapeMarkdown(sessionName(state))}**\n\nCleared. Undo Last Change brings its tasks back; Close hides the session.`,
      icon: { id: 'clear-all' },
      contextValue: 'session.cleared',
      collapsible: 'none',
    };
  }
  const heading = state.title === null ? `**Session ${escapeMarkdown(state.session)}**` : `**${escapeMarkdown(state.title)}**\n\nSession ${escapeMarkdown(state.session)}`;
  const agent = sessionAgent(state.session);
  const lines = [heading, '', progressLine(state)];
  if (agent !== undefined) {
    lines.push('', `Agent: ${escapeMarkdown(agent.name)}`);
  }
  if (state.current !== null) {
    lines.push('', `Now: ${escapeMarkdown(state.current.activeForm)}`);
  }
  const where = checkoutText(node.checkout);
  if (node.checkout !== null) {
    lines.push('', checkoutTooltip(node.checkout));
  }
  // A narrow sidebar (about 290 px) cuts the end of the line: first done/total, then who
  // (the agent, by its short name, unless the label already names it), then the checkout's
  // short form; the percent, the agent's full name and the worktree's path are in the tooltip.
  const label = sessionRowLabel(state);
  const who = agent !== undefined && !label.startsWith(agent.name) ? agent.short : undefined;
  return {
    label,
    description: [`${state.progress.completed}/${state.progress.total}`, who, where].filter((part) => part !== undefined).join(' · '),
    tooltip: lines.join('\n'),
    icon: sessionRowIcon(state.session),
    contextValue: 'session',
    collapsible: node.expanded ? 'expanded' : 'collapsed',
  };
}

/** A session's icon: its agent's logo, else a codicon (an agent simple-icons has no mark for, or none). */
export function sessionRowIcon(session: string): Icon {
  const icon = sessionIcon(session);
  return 'logo' in icon ? { id: icon.logo, agent: true } : { id: icon.codicon };
}

function phaseView(node: PhaseNode): NodeView {
  const { completed: done, total } = node.phase.progress;
  return {
    label: node.name,
    description: `${done}/${total}`,
    tooltip: `**${escapeMarkdown(node.name)}**\n\n${done} of ${total} completed`,
    icon: { id: 'list-unordered' },
    contextValue: 'phase',
    collapsible: total > 0 ? 'expanded' : 'none',
  };
}

/** The description's mark of a task a person created (`createdBy: "user"`). */
export const CREATED_BY_USER_MARK = 'you';

function taskView(node: TaskNode, formatTime: (iso: string) => string): NodeView {
  const { task } = node;
  // A narrow sidebar cuts the end of the line, so what matters comes first, short: a task
  // a person added says so (`you`), then what it waits for (why it does not move), then
  // whose it is. The priority is a decoration badge at the row's end; the tooltip has all.
  const parts: string[] = task.createdBy === 'user' ? [CREATED_BY_USER_MARK] : [];
  const parent = node.subtasks.total > 0;
  if (parent) {
    // (v4) A parent's status is its subtasks': their progress says how far it is.
    parts.unshift(`${node.subtasks.completed}/${node.subtasks.total}`);
  }
  if (node.waitsFor.length > 0) {
    parts.push(waitsForShort(node.waitsFor));
  }
  if (node.shownOwner !== undefined) {
    parts.push(`@${node.shownOwner}`);
  }
  if (task.files.length > 0) {
    parts.push(task.files.length === 1 ? '1 file' : `${task.files.length} files`);
  }
  if (task.notes.length > 0) {
    parts.push(task.notes.length === 1 ? '1 note' : `${task.notes.length} notes`);
  }
  const took = duration(task);
  if (took !== undefined) {
    parts.push(took);
  }
  const view: NodeView = {
    label: task.status === 'in_progress' ? task.activeForm : task.content,
    tooltip: taskTooltip(node, formatTime),
    icon: node.waitsFor.length > 0 && task.status === 'pending' ? WAITING_ICON : TASK_ICONS[task.status],
    contextValue: `task.${task.status}`,
    // (v4) A parent shows its subtasks; a task in progress the files it is changing as they come.
    collapsible: parent ? 'expanded' : task.notes.length + task.files.length === 0 ? 'none' : task.status === 'in_progress' && task.files.length > 0 ? 'expanded' : 'collapsed',
    decoration: taskDecorationUri(node),
    checked: task.status === 'completed',
  };
  return parts.length > 0 ? { ...view, description: parts.join(' · ') } : view;
}

export const TASK_DECORATION_SCHEME = 'plansight-task';

/** `plansight-task:/<session>/<id>?status=completed&priority=high`: what the decoration is drawn from. */
export function taskDecorationUri(node: TaskNode): string {
  const query = new URLSearchParams({ status: node.task.status });
  if (node.task.priority !== null) {
    query.set('priority', node.task.priority);
  }
  return `${TASK_DECORATION_SCHEME}:/${encodeURIComponent(node.session)}/${encodeURIComponent(node.task.id)}?${query.toString()}`;
}

/** A FileDecoration as plain data. */
export interface Decoration {
  readonly badge?: string;
  readonly tooltip?: string;
  /** A theme colour id for the label (and the badge). */
  readonly color?: string;
}

/**
 * The decoration of a task row, from its URI's query: the priority badge of an unfinished
 * task, and the dimmed colour of a finished one.
 */
export function taskDecoration(query: string): Decoration | undefined {
  const params = new URLSearchParams(query);
  const status = params.get('status');
  const priority = params.get('priority');
  const finished = isFinished(status);
  const known = priority === 'high' || priority === 'medium' || priority === 'low';
  if (!finished && !known) {
    return undefined;
  }
  return {
    ...(known && !finished ? { badge: PRIORITY_BADGES[priority], tooltip: `${capitalize(priority)} priority` } : {}),
    ...(finished ? { color: FINISHED_COLOR } : {}),
  };
}

function noteView(node: NoteNode): NodeView {
  const lines = node.text.split(/\r?\n/);
  const first = lines[0] ?? '';
  return {
    label: lines.length > 1 ? `${first} …` : first,
    tooltip: escapeMarkdown(node.text).replace(/\n/g, '  \n'),
    icon: { id: 'comment' },
    contextValue: 'note',
    collapsible: 'none',
  };
}

/**
 * (v4) A checkout in a few words for a session's row: the branch, else (detached) the
 * worktree's folder name; undefined for none known or the main working tree detached.
 */
export function checkoutText(checkout: Checkout | null): string | undefined {
  if (checkout === null) {
    return undefined;
  }
  if (checkout.branch !== null) {
    return `⎇ ${checkout.branch}`;
  }
  const folder = checkout.worktree?.split(/[\\/]/).filter((part) => part !== '').pop();
  return folder === undefined ? undefined : `⎇ ${folder} (detached)`;
}

/** The tooltip's line: the branch and, for a linked worktree, its folder. */
export function checkoutTooltip(checkout: Checkout): string {
  const branch = checkout.branch === null ? 'a detached HEAD' : `branch ${escapeMarkdown(checkout.branch)}`;
  const tree = checkout.worktree === null ? 'the main working tree' : `worktree ${escapeMarkdown(checkout.worktree)}`;
  return `Checkout: ${branch}, in ${tree}`;
}

function fileView(node: FileNode): NodeView {
  const slash = node.path.lastIndexOf('/');
  const folder = slash > 0 ? node.path.slice(0, slash) : undefined;
  const view: NodeView = {
    label: node.path.slice(slash + 1),
    tooltip: `${escapeMarkdown(node.path)}\n\nChanged while "${escapeMarkdown(node.task.content)}" was in progress`,
    icon: { id: 'file' },
    contextValue: 'file',
    collapsible: 'none',
    file: node.path,
    worktree: node.worktree,
  };
  return folder === undefined ? view : { ...view, description: folder };
}

function taskTooltip(node: TaskNode, formatTime: (iso: string) => string): string {
  const { task } = node;
  const lines = [`**${escapeMarkdown(task.content)}**`];
  if (task.activeForm !== task.content) {
    lines.push('', `*${escapeMarkdown(task.activeForm)}*`);
  }
  if (task.description !== '') {
    lines.push('', escapeMarkdown(task.description).replace(/\n/g, '  \n'));
  }
  if (node.waitsFor.length > 0) {
    lines.push('', escapeMarkdown(capitalize(waitsForText(node.waitsFor))));
  }
  const place = node.position === undefined ? `${node.subtasks.completed} of ${node.subtasks.total} subtasks completed` : `Task ${node.position} of ${node.leaves}`;
  const facts = [place, `status: ${STATUS_WORDS[task.status]}`];
  if (task.priority !== null) {
    facts.push(`${task.priority} priority`);
  }
  if (task.owner !== null) {
    facts.push(`owner ${escapeMarkdown(task.owner)}`);
  }
  facts.push(`phase ${escapeMarkdown(node.phase)}`, `id ${escapeMarkdown(task.id)}`);
  lines.push('', facts.join(' · '));
  const times = [`${task.createdBy === 'user' ? 'added by you' : 'created'} ${formatTime(task.createdAt)}`];
  if (task.startedAt !== null) {
    times.push(`started ${formatTime(task.startedAt)}`);
  }
  if (task.completedAt !== null) {
    times.push(`${task.status === 'abandoned' ? 'dropped' : 'finished'} ${formatTime(task.completedAt)}`);
  }
  const took = duration(task);
  if (took !== undefined) {
    times.push(`took ${took}`);
  }
  lines.push('', capitalize(times.join(' · ')));
  if (task.notes.length > 0) {
    lines.push('', 'Notes:', '');
    for (const note of task.notes) {
      lines.push(`- ${escapeMarkdown(note).replace(/\n/g, '  \n  ')}`);
    }
  }
  return lines.join('\n');
}

/** How long a finished task took, from start to finish; undefined when unknown. */
export function duration(task: Task): string | undefined {
  if (!isFinished(task.status) || task.startedAt === null || task.completedAt === null) {
    return undefined;
  }
  const ms = Date.parse(task.completedAt) - Date.parse(task.startedAt);
  return Number.isNaN(ms) || ms < 0 ? undefined : formatDuration(ms);
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) {
    return `${seconds}s`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    const rest = seconds % 60;
    return rest === 0 ? `${minutes}m` : `${minutes}m ${rest}s`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    const rest = minutes % 60;
    return rest === 0 ? `${hours}h` : `${hours}h ${rest}m`;
  }
  const days = Math.floor(hours / 24);
  const rest = hours % 24;
  return rest === 0 ? `${days}d` : `${days}d ${rest}h`;
}

/** `3/8 · 37%`: completed of total and the server's percent; undefined without tasks. */
export function progressText(state: TodoState | undefined): string | undefined {
  if (state === undefined || state.progress.total === 0) {
    return undefined;
  }
  const { completed, total, percent } = state.progress;
  return `${completed}/${total} · ${percent}%`;
}

/** Tasks neither completed nor abandoned: the view's badge. */
export function remainingTasks(state: TodoState | undefined): number {
  if (state === undefined) {
    return 0;
  }
  return remainingOf(state.progress);
}

function progressLine(state: TodoState): string {
  const { completed, abandoned, blocked, total, percent } = state.progress;
  const dropped = abandoned > 0 ? `, ${abandoned} dropped` : '';
  const stuck = blocked > 0 ? `, ${blocked} blocked` : '';
  return `${completed} of ${total} completed (${percent}%)${dropped}${stuck}, ${remainingTasks(state)} remaining`;
}

export interface ViewHeader {
  readonly title: string;
  readonly description: string | undefined;
}

/**
 * The view's title and description for the followed session. Alone in its container (as
 * it is by default) the view's description is not drawn: the title, shown in the side
 * bar's header, carries the progress, first so a narrow sidebar keeps it ("3/12 · 25%",
 * then the session's title). Beside other views the description says the same.
 */
export function viewHeader(active: TodoState | undefined, several: boolean, checkout: Checkout | null = null): ViewHeader {
  const progress = progressText(active);
  if (active === undefined || progress === undefined) {
    return { title: 'Plan', description: undefined };
  }
  const name = several ? sessionName(active) : (active.title ?? undefined);
  // (v4) A lone session has no row: its checkout goes with its name here.
  const text = [progress, name, checkoutText(checkout)].filter((part) => part !== undefined).join(' · ');
  return { title: text, description: text };
}

export interface StatusBarView {
  readonly text: string;
  readonly tooltip: string;
}

/** The status bar item: the current task's activeForm and the progress; undefined hides it. */
export function statusBarView(state: TodoState | undefined): StatusBarView | undefined {
  if (state === undefined || state.progress.total === 0) {
    return undefined;
  }
  const { completed, total } = state.progress;
  const progress = `${completed}/${total}`;
  const where = `Plansight, ${state.title === null ? `session ${state.session}` : `"${state.title}" (session ${state.session})`}: ${progressLine(state)}.`;
  if (state.current === null) {
    return { text: `$(checklist) ${progress}`, tooltip: `${where}\nClick to show the plan.` };
  }
  return {
    text: `$(sync~spin) ${escapeIcons(truncate(state.current.activeForm, 60))} · ${progress}`,
    tooltip: `${where}\nNow: ${state.current.activeForm}\nClick to show the plan.`,
  };
}

/** What a person calls a session: its title when it has one, else its key. */
export function sessionName(state: Pick<TodoState, 'session' | 'title'>): string {
  return state.title ?? state.session;
}

/** Backslash-escapes what Markdown would otherwise read as markup. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&$]/g, (char) => `\\${char}`);
}

/** Keeps `$(name)` in agent text from being drawn as an icon in the status bar. */
function escapeIcons(text: string): string {
  return text.replace(/\$\(/g, '$\u200b(');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
