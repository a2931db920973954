// The LiveAgent Memory web panel: a person's page over the bridge's panel API (web/panel.py).
// Plain JavaScript, no build step, nothing fetched from elsewhere. Memory text is only ever put
// into the page as text nodes (never innerHTML): a memory may hold anything.
"use strict";

(() => {
  // --- words -------------------------------------------------------------------------------
  const STRINGS = {
    en: {
      project: "Project",
      language: "Language",
      allProjects: "All projects",
      global: "Global",
      tabMemories: "Memories",
      tabReview: "Review",
      tabOrganizer: "Organizer",
      tabJournal: "Journal",
      dismiss: "Dismiss",
      searchPlaceholder: "Search memories",
      searchButton: "Search",
      scope: "Scope",
      type: "Type",
      anyScope: "Any scope",
      scopeGlobal: "Global",
      scopeProject: "Project",
      anyType: "Any type",
      type_user: "User",
      type_feedback: "Feedback",
      type_project: "Project",
      type_reference: "Reference",
      type_skill: "Skill",
      type_daily: "Journal",
      unreviewedOnly: "Unreviewed only",
      needsReview: "needs review",
      pickMemory: "Choose a memory to read it.",
      shownOf: "{shown} of {total} memories",
      matches: "{count} matches",
      nothingFound: "No memories here.",
      updated: "Updated {when}",
      accept: "Accept",
      edit: "Edit",
      delete: "Delete",
      history: "History",
      undo: "Undo",
      cancel: "Cancel",
      save: "Save",
      editTitle: "Edit memory",
      description: "Description",
      text: "Text",
      confirmDelete: "Move “{title}” to the trash?",
      confirmAcceptAll: "Accept all {count} memories shown?",
      accepted: "Accepted “{title}”.",
      acceptedMany: "Accepted {count} memories.",
      edited: "Saved “{title}”.",
      deleted: "Moved “{title}” to the trash.",
      undone: "Undone.",
      nothingChanged: "Nothing changed.",
      historyTitle: "History",
      historyEmpty: "No earlier versions.",
      historyLine: "{when} · {op} by {who}",
      op_write: "written",
      op_update: "edited",
      op_delete: "deleted",
      op_accept: "accepted",
      op_restore: "restored",
      who_user: "you",
      who_tool: "an agent",
      who_extractor: "extraction",
      who_organizer: "the organizer",
      unreviewedTitle: "Unreviewed memories",
      acceptAllShown: "Accept all shown",
      noneUnreviewed: "Every memory here is reviewed.",
      queueTitle: "Organizer review queue",
      queueNone: "No organizer run is waiting for your review.",
      queueOf: "From the run of {when}: {summary}",
      // A run's summary from its outcome's code and figures (organizer/run_record.py run_outcome).
      outcome_offlineProposed: "Memories: {memories}, clusters: {clusters}. {proposed} merges and deletions proposed for review (offline duplicate check).",
      outcome_gatePassed: "Memories: {memories}, clusters: {clusters}. {proposed} decisions passed the risk gate, {heldBack} held back.",
      outcome_consolidated: "{episodes} new episodes; {proposed} lessons proposed for review.",
      outcome_nothingToOrganize: "Nothing to organize.",
      outcome_nothingToConsolidate: "No new episodes since the last consolidation: nothing to learn.",
      proposals: "Proposals",
      contradictions: "Contradictions",
      kind_merge: "Merge",
      kind_delete: "Delete",
      kind_rewrite: "Rewrite",
      kind_learn: "Learned",
      learn_antiPattern: "anti-pattern",
      learn_skill: "skill",
      learn_pattern: "pattern",
      learnNew: "New {kind}",
      learnUpdate: "Update {kind}",
      learnedFrom: "Learned from {count} episodes ({kind}): {episodes}.",
      learnedMore: "The {kind} already exists; {count} more episodes confirm it: {episodes}.",
      apply: "Apply",
      reject: "Reject",
      state_applied: "Applied",
      state_rejected: "Rejected",
      state_failed: "Failed",
      state_partial: "Partly applied",
      applied: "Applied the proposal.",
      rejected: "Rejected the proposal.",
      keepFirst: "Keep first",
      keepSecond: "Keep second",
      keepBoth: "Keep both",
      resolved: "Answered the contradiction.",
      first: "First",
      second: "Second",
      differs: "What differs: {what}",
      editContradiction: "Write the text that is true now",
      runHistory: "Run history",
      runNow: "Run now",
      colStatus: "Status",
      colPhase: "Phase",
      colTrigger: "Trigger",
      colCounts: "Counts",
      colSummary: "Summary",
      colTimes: "Times",
      counts: "{input} in, {merged} merged, {deleted} deleted",
      noRuns: "No organizer runs yet.",
      queued: "Queued: waiting for the desktop app or “liveagent-memory serve” to start it.",
      noRunner:
        "Still queued: no runner seems to be running. Open the desktop app or run “liveagent-memory serve”.",
      running: "Running: {phase}",
      finished: "Finished: {summary}",
      failedRun: "The run ended {status}: {error}",
      openQueue: "Open its review queue",
      statusIdle: "Organizer: idle",
      statusQueued: "Organizer: queued",
      statusRunning: "Organizer: running: {phase}",
      statusOffline: "(live updates lost: reconnecting)",
      journalDays: "Days",
      pickDay: "Choose a day to read its entries.",
      noDays: "No journal days here.",
      dayEntries: "Entries: {count}",
      phase_scan: "scanning",
      phase_cluster: "clustering",
      phase_plan: "planning",
      phase_gate: "checking",
      phase_apply: "applying",
      phase_done: "done",
      phase_consolidate: "learning from episodes",
      noEntries: "No entries.",
      relatedMemories: "Memories: {slugs}",
      status_pending: "queued",
      status_running: "running",
      status_succeeded: "succeeded",
      status_failed: "failed",
      status_cancelled: "cancelled",
      status_skipped: "skipped",
      trigger_manual: "manual",
      trigger_scheduled: "scheduled",
      trigger_threshold: "threshold",
      errorLine: "{message} ({code})",
      sessionGone: "Your panel session ended: open the panel again from the app or the link “serve” printed.",
    },
    zh: {
      project: "项目",
      language: "语言",
      allProjects: "所有项目",
      global: "全局",
      tabMemories: "记忆",
      tabReview: "审阅",
      tabOrganizer: "整理器",
      tabJournal: "日志",
      dismiss: "关闭",
      searchPlaceholder: "搜索记忆",
      searchButton: "搜索",
      scope: "范围",
      type: "类型",
      anyScope: "任意范围",
      scopeGlobal: "全局",
      scopeProject: "项目",
      anyType: "任意类型",
      type_user: "用户",
      type_feedback: "反馈",
      type_project: "项目",
      type_reference: "参考",
      type_skill: "技能",
      type_daily: "日志",
      unreviewedOnly: "仅未审阅",
      needsReview: "待审阅",
      pickMemory: "选择一条记忆以查看内容。",
      shownOf: "显示 {shown} / {total} 条记忆",
      matches: "{count} 条结果",
      nothingFound: "这里没有记忆。",
      updated: "更新于 {when}",
      accept: "接受",
      edit: "编辑",
      delete: "删除",
      history: "历史",
      undo: "撤销",
      cancel: "取消",
      save: "保存",
      editTitle: "编辑记忆",
      description: "描述",
      text: "正文",
      confirmDelete: "将“{title}”移到回收站？",
      confirmAcceptAll: "接受显示的全部 {count} 条记忆？",
      accepted: "已接受“{title}”。",
      acceptedMany: "已接受 {count} 条记忆。",
      edited: "已保存“{title}”。",
      deleted: "已将“{title}”移到回收站。",
      undone: "已撤销。",
      nothingChanged: "没有改动。",
      historyTitle: "历史",
      historyEmpty: "没有更早的版本。",
      historyLine: "{when} · {who}{op}",
      op_write: "写入",
      op_update: "编辑",
      op_delete: "删除",
      op_accept: "接受",
      op_restore: "恢复",
      who_user: "你",
      who_tool: "智能体",
      who_extractor: "提取",
      who_organizer: "整理器",
      unreviewedTitle: "未审阅的记忆",
      acceptAllShown: "全部接受",
      noneUnreviewed: "这里的记忆都已审阅。",
      queueTitle: "整理器审阅队列",
      queueNone: "没有等待你审阅的整理运行。",
      queueOf: "来自 {when} 的运行：{summary}",
      outcome_offlineProposed: "记忆 {memories} 条，聚类 {clusters} 个。提出 {proposed} 项合并与删除，等待审阅（离线重复检查）。",
      outcome_gatePassed: "记忆 {memories} 条，聚类 {clusters} 个。{proposed} 项决定通过风险检查，{heldBack} 项被暂缓。",
      outcome_consolidated: "{episodes} 条新经历；{proposed} 条经验待审阅。",
      outcome_nothingToOrganize: "没有需要整理的记忆。",
      outcome_nothingToConsolidate: "上次整合以来没有新的经历：没有可学习的内容。",
      proposals: "提议",
      contradictions: "矛盾",
      kind_merge: "合并",
      kind_delete: "删除",
      kind_rewrite: "改写",
      kind_learn: "学到的经验",
      learn_antiPattern: "反模式",
      learn_skill: "技能",
      learn_pattern: "模式",
      learnNew: "新{kind}",
      learnUpdate: "更新{kind}",
      learnedFrom: "从 {count} 条经历中学到的{kind}：{episodes}。",
      learnedMore: "该{kind}已存在；又有 {count} 条经历印证了它：{episodes}。",
      apply: "应用",
      reject: "拒绝",
      state_applied: "已应用",
      state_rejected: "已拒绝",
      state_failed: "失败",
      state_partial: "部分已应用",
      applied: "已应用该提议。",
      rejected: "已拒绝该提议。",
      keepFirst: "保留第一条",
      keepSecond: "保留第二条",
      keepBoth: "两条都保留",
      resolved: "已处理该矛盾。",
      first: "第一条",
      second: "第二条",
      differs: "不同之处：{what}",
      editContradiction: "写下现在正确的内容",
      runHistory: "运行记录",
      runNow: "立即运行",
      colStatus: "状态",
      colPhase: "阶段",
      colTrigger: "触发",
      colCounts: "数量",
      colSummary: "摘要",
      colTimes: "时间",
      counts: "输入 {input}，合并 {merged}，删除 {deleted}",
      noRuns: "还没有整理运行。",
      queued: "已排队：等待桌面应用或 “liveagent-memory serve” 启动它。",
      noRunner: "仍在排队：似乎没有运行器在运行。请打开桌面应用或运行 “liveagent-memory serve”。",
      running: "运行中：{phase}",
      finished: "已完成：{summary}",
      failedRun: "运行结束（{status}）：{error}",
      openQueue: "打开它的审阅队列",
      statusIdle: "整理器：空闲",
      statusQueued: "整理器：排队中",
      statusRunning: "整理器：运行中：{phase}",
      statusOffline: "（实时更新中断：正在重连）",
      journalDays: "日期",
      pickDay: "选择一天以查看日志条目。",
      noDays: "这里没有日志。",
      dayEntries: "条目：{count}",
      phase_scan: "扫描",
      phase_cluster: "聚类",
      phase_plan: "规划",
      phase_gate: "把关",
      phase_apply: "应用",
      phase_done: "完成",
      phase_consolidate: "从经历中学习",
      noEntries: "没有条目。",
      relatedMemories: "相关记忆：{slugs}",
      status_pending: "排队中",
      status_running: "运行中",
      status_succeeded: "成功",
      status_failed: "失败",
      status_cancelled: "已取消",
      status_skipped: "已跳过",
      trigger_manual: "手动",
      trigger_scheduled: "定时",
      trigger_threshold: "阈值",
      errorLine: "{message}（{code}）",
      sessionGone: "面板会话已结束：请从应用或 “serve” 打印的链接重新打开面板。",
    },
  };
  const LANGS = Object.keys(STRINGS);
  const body = document.body;
  const POLL_MS = Number(body.dataset.pollMs) || 1000;
  const UNCLAIMED_MS = Number(body.dataset.unclaimedMs) || 10000;
  // The page's own numbers (the bridge's are in domain/config.py and reach it as data-*).
  const RETRIES = 5; // a 429 (the bridge's rate limit) is tried again after a pause...
  const RETRY_PAUSE_MS = 1000; // ...of about the bucket's refill for a few calls
  const LIST_LIMIT = 200; // memories a list shows: more than a person scrolls through
  const RUNS_SHOWN = 20; // the Organizer tab's history (the WebSocket pushes as many)
  const QUEUE_RUNS_READ = 5; // finished runs looked through for an open review queue
  const JOURNAL_DAYS = 60; // about two months of days
  const TOAST_MS = 10000; // long enough to reach Undo

  const state = {
    lang: pickLanguage(),
    tab: "memories",
    projects: [],
    project: "all", // "all", "global" or a project's index in `projects`
    entries: [],
    total: 0,
    selected: null,
    runs: [],
    socketUp: false,
    queueRun: null,
  };

  function pickLanguage() {
    const kept = localStorage.getItem("liveagent-panel-lang");
    if (LANGS.includes(kept)) return kept;
    return (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
  }

  function t(key, params = {}) {
    let text = STRINGS[state.lang][key] ?? STRINGS.en[key] ?? key;
    for (const [name, value] of Object.entries(params)) {
      text = text.split(`{${name}}`).join(String(value));
    }
    return text;
  }

  const $ = (id) => document.getElementById(id);

  // A finished run's summary in the page's language, from its outcome (codes and figures);
  // a run without one (older, still going, another program's) shows its stored English.
  function summaryOf(run) {
    const outcome = run.outcome;
    const key = outcome && `outcome_${outcome.code}`;
    if (!key || !(key in STRINGS.en)) return run.final_summary || "";
    const figures = Object.entries(outcome).filter(([, value]) => Number.isFinite(value));
    const text = t(key, Object.fromEntries(figures));
    // A hand-edited report missing a figure (or one not a number): its stored English, not a
    // half-filled sentence.
    return /\{\w+\}/.test(text) ? run.final_summary || "" : text;
  }

  // A stored word (an audit op, an actor) in the page's language; an unknown one as stored.
  function word(kind, value) {
    const key = `${kind}_${value}`;
    return STRINGS[state.lang][key] ?? STRINGS.en[key] ?? String(value ?? "");
  }

  // An element with text children only (strings become text nodes, never markup).
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "onclick") node.addEventListener("click", value);
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function button(label, onclick, attrs = {}) {
    return el("button", { type: "button", onclick, ...attrs }, label);
  }

  function when(ms) {
    if (!ms) return "";
    const locale = state.lang === "zh" ? "zh-CN" : "en-GB";
    return new Date(ms).toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
  }

  function applyLanguage() {
    document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
      node.placeholder = t(node.dataset.i18nPlaceholder);
    }
    for (const node of document.querySelectorAll("[data-i18n-label]")) {
      node.setAttribute("aria-label", t(node.dataset.i18nLabel));
    }
    $("language").value = state.lang;
  }

  // --- calls -------------------------------------------------------------------------------
  class PanelError extends Error {
    constructor(answer, status) {
      super(answer.message || `HTTP ${status}`);
      this.code = answer.error || `http_${status}`;
      this.status = status;
    }
  }

  function scopeFields() {
    // What the project picker adds: the workdir of the chosen project (the bridge puts it
    // into each command that takes one), or every project.
    if (state.project === "all") return { workdir: null, all: true };
    if (state.project === "global") return { workdir: null, all: false };
    const chosen = state.projects[state.project];
    return { workdir: chosen ? chosen.workdir : null, all: false, hash: chosen?.workdir_hash };
  }

  const TAKES_ALL = new Set(["memory_list", "memory_search", "memory_journal_days"]);

  async function call(command, payload = {}) {
    const scope = scopeFields();
    const sent = { ...payload };
    if (scope.all && TAKES_ALL.has(command)) sent.include_all_projects = true;
    if (!scope.all && !scope.workdir && scope.hash && TAKES_ALL.has(command)) {
      sent.workdir_hash = scope.hash; // a project whose folder is unknown here
    }
    const request = { command, payload: sent };
    if (scope.workdir) request.workdir = scope.workdir;
    for (let attempt = 0; ; attempt++) {
      const response = await fetch("/panel/api/call", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(request),
        credentials: "same-origin",
      });
      let answer;
      try {
        answer = await response.json();
      } catch {
        answer = { error: `http_${response.status}`, message: response.statusText };
      }
      if (response.ok) return answer;
      if (response.status === 429 && attempt < RETRIES) {
        await new Promise((done) => setTimeout(done, RETRY_PAUSE_MS));
        continue;
      }
      throw new PanelError(answer, response.status);
    }
  }

  function showError(error) {
    const text =
      error instanceof PanelError && error.status === 401
        ? `${t("sessionGone")} (${error.code})`
        : t("errorLine", { message: error.message, code: error.code || "network_error" });
    $("error-text").textContent = text;
    $("error").hidden = false;
  }

  // Runs an action; any failure is shown in the page, never swallowed.
  async function guarded(action) {
    try {
      return await action();
    } catch (error) {
      showError(error);
      return undefined;
    }
  }

  let toastTimer = null;
  function toast(text, undo) {
    $("toast-text").textContent = text;
    const undoButton = $("toast-undo");
    undoButton.hidden = !undo;
    undoButton.onclick = undo
      ? () => {
          $("toast").hidden = true;
          guarded(async () => {
            await call("memory_undo", undo);
            toast(t("undone"));
            await refreshAll();
          });
        }
      : null;
    $("toast").hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => ($("toast").hidden = true), TOAST_MS);
  }

  function undoOf(result) {
    // A mutation's result names its change; undo takes the memory's address and that change.
    if (!result || !result.change) return null;
    const address = target(result);
    return { ...address, change: result.change };
  }

  function target(entry) {
    const out = { slug: entry.slug, scope: entry.scope };
    if (entry.scope === "project") out.workdir_hash = entry.workdir_hash;
    return out;
  }

  function title(entry) {
    return entry.description || entry.slug;
  }

  function projectName(entry) {
    if (entry.scope !== "project") return t("global");
    const path = entry.workdir || "";
    const parts = path.split(/[\\/]/).filter(Boolean);
    return parts.length ? parts[parts.length - 1] : (entry.workdir_hash || "").slice(0, 8);
  }

  // --- dialogs -----------------------------------------------------------------------------
  function confirmAction(text, yesLabel) {
    return new Promise((resolve) => {
      const dialog = $("confirm-dialog");
      $("confirm-text").textContent = text;
      $("confirm-yes").textContent = yesLabel;
      const finish = (answer) => {
        dialog.close();
        resolve(answer);
      };
      $("confirm-yes").onclick = () => finish(true);
      $("confirm-no").onclick = () => finish(false);
      dialog.oncancel = () => resolve(false);
      dialog.showModal();
      $("confirm-no").focus();
    });
  }

  function editText(heading, description, text) {
    return new Promise((resolve) => {
      const dialog = $("edit-dialog");
      $("edit-title").textContent = heading;
      $("edit-description").value = description;
      $("edit-body").value = text;
      $("edit-form").onsubmit = (event) => {
        event.preventDefault();
        dialog.close();
        resolve({ description: $("edit-description").value, body: $("edit-body").value });
      };
      $("edit-cancel").onclick = () => {
        dialog.close();
        resolve(null);
      };
      dialog.oncancel = () => resolve(null);
      dialog.showModal();
      $("edit-body").focus();
    });
  }

  // --- memories ----------------------------------------------------------------------------
  function filters() {
    const out = { limit: LIST_LIMIT };
    const scope = $("filter-scope").value;
    const type = $("filter-type").value;
    if (scope) out.scope = scope;
    if (type) out.type = type;
    if ($("filter-unreviewed").checked) out.unreviewed = true;
    return out;
  }

  async function loadMemories() {
    const query = $("search").value.trim();
    if (query) {
      const found = await call("memory_search", { query, include_daily: false, ...filters() });
      state.entries = found.matches;
      state.total = found.matches.length;
      $("memory-count").textContent = t("matches", { count: found.matches.length });
    } else {
      const listing = await call("memory_list", filters());
      state.entries = listing.entries;
      state.total = listing.total;
      $("memory-count").textContent = t("shownOf", { shown: listing.entries.length, total: listing.total });
    }
    renderMemoryList();
    const still = state.selected && state.entries.find((e) => sameMemory(e, state.selected));
    if (still) await showMemory(still);
    else clearDetail();
  }

  function sameMemory(a, b) {
    return a.slug === b.slug && a.scope === b.scope && (a.workdir_hash || "") === (b.workdir_hash || "");
  }

  function memoryRow(entry, onOpen) {
    const badge = entry.unreviewed ? el("span", { class: "badge" }, t("needsReview")) : null;
    const meta = [projectName(entry), t(`type_${entry.type}`)];
    if (entry.updated_at) meta.push(when(entry.updated_at));
    const selected = state.selected && sameMemory(entry, state.selected);
    return el(
      "li",
      {},
      el(
        "button",
        { type: "button", class: selected ? "row selected" : "row", onclick: () => onOpen(entry), "data-slug": entry.slug },
        el("span", { class: "row-title" }, title(entry), badge),
        el("span", { class: "row-meta" }, meta.join(" · ")),
      ),
    );
  }

  function renderMemoryList() {
    const list = $("memory-list");
    list.replaceChildren(...state.entries.map((entry) => memoryRow(entry, (e) => guarded(() => showMemory(e)))));
    if (!state.entries.length) list.append(el("li", { class: "muted empty" }, t("nothingFound")));
  }

  function clearDetail() {
    state.selected = null;
    $("detail").replaceChildren(el("p", { class: "muted" }, t("pickMemory")));
  }

  async function showMemory(entry) {
    const data = await call("memory_read", target(entry));
    state.selected = data.entry;
    renderMemoryList();
    const shown = data.entry;
    const actions = el(
      "div",
      { class: "actions" },
      shown.unreviewed ? button(t("accept"), () => guarded(() => acceptMemory(shown)), { id: "detail-accept", class: "primary" }) : null,
      button(t("edit"), () => guarded(() => editMemory(data)), { id: "detail-edit" }),
      button(t("delete"), () => guarded(() => deleteMemory(shown)), { id: "detail-delete", class: "danger" }),
      button(t("history"), () => guarded(() => showHistory(shown)), { id: "detail-history" }),
    );
    $("detail").replaceChildren(
      el("h2", { id: "detail-title" }, title(shown), shown.unreviewed ? el("span", { class: "badge" }, t("needsReview")) : null),
      el("p", { class: "row-meta" }, [shown.slug, projectName(shown), t(`type_${shown.type}`), t("updated", { when: when(shown.updated_at) })].join(" · ")),
      actions,
      el("pre", { class: "body", id: "detail-body" }, data.content || data.body || ""),
      el("div", { id: "history" }),
    );
  }

  async function acceptMemory(entry) {
    const result = await call("memory_accept", target(entry));
    toast(t("accepted", { title: title(entry) }), undoOf(result));
    await refreshAll();
  }

  async function editMemory(data) {
    const entry = data.entry;
    const before = { description: entry.description || "", body: (data.content || "").trim() };
    const edited = await editText(t("editTitle"), before.description, before.body);
    if (!edited) return;
    const changes = {};
    if (edited.body.trim() !== before.body) changes.body = edited.body;
    if (edited.description !== before.description) changes.description = edited.description;
    if (!Object.keys(changes).length) {
      toast(t("nothingChanged"));
      return;
    }
    const result = await call("memory_update", { ...target(entry), mode: "replace", ...changes });
    toast(t("edited", { title: edited.description || entry.slug }), undoOf(result));
    await refreshAll();
  }

  async function deleteMemory(entry) {
    if (!(await confirmAction(t("confirmDelete", { title: title(entry) }), t("delete")))) return;
    const result = await call("memory_delete", target(entry));
    if (state.selected && sameMemory(state.selected, entry)) state.selected = null;
    toast(t("deleted", { title: title(entry) }), undoOf(result));
    await refreshAll();
  }

  async function showHistory(entry) {
    const answer = await call("memory_history", target(entry));
    const lines = answer.entries.map((item) =>
      el("li", {}, t("historyLine", { when: when(item.ts), op: word("op", item.op), who: word("who", item.who || item.actor) })),
    );
    $("history").replaceChildren(
      el("h3", {}, t("historyTitle")),
      lines.length ? el("ul", { class: "history" }, lines) : el("p", { class: "muted" }, t("historyEmpty")),
    );
  }

  // --- review ------------------------------------------------------------------------------
  let reviewEntries = [];

  async function loadReview() {
    const listing = await call("memory_list", { unreviewed: true, limit: LIST_LIMIT });
    reviewEntries = listing.entries;
    const list = $("review-list");
    list.replaceChildren(
      ...reviewEntries.map((entry) =>
        el(
          "li",
          { class: "review-item" },
          el("span", { class: "row-title" }, title(entry)),
          el("span", { class: "row-meta" }, [entry.slug, projectName(entry), t(`type_${entry.type}`)].join(" · ")),
          el(
            "div",
            { class: "actions" },
            button(t("accept"), () => guarded(() => acceptMemory(entry)), { class: "primary" }),
            button(t("edit"), () => guarded(async () => editMemory(await call("memory_read", target(entry))))),
            button(t("delete"), () => guarded(() => deleteMemory(entry)), { class: "danger" }),
          ),
        ),
      ),
    );
    if (!reviewEntries.length) list.append(el("li", { class: "muted empty" }, t("noneUnreviewed")));
    $("accept-all").disabled = !reviewEntries.length;
    await loadQueue();
  }

  async function acceptAll() {
    const shown = [...reviewEntries];
    if (!shown.length) return;
    if (!(await confirmAction(t("confirmAcceptAll", { count: shown.length }), t("accept")))) return;
    let done = 0;
    try {
      for (const entry of shown) {
        await call("memory_accept", target(entry));
        done += 1;
      }
    } finally {
      toast(t("acceptedMany", { count: done }));
      await refreshAll();
    }
  }

  async function findQueueRun() {
    // The newest finished run whose queue still has something open: proposals or contradictions.
    for (const run of state.runs.filter((r) => r.status === "succeeded").slice(0, QUEUE_RUNS_READ)) {
      // The queue as organizer/review.py groups it (`organize_review_queue`): one rule.
      const queue = await call("organize_review_queue", { run_id: run.run_id });
      const contradictions = (await call("organize_contradictions", { run_id: run.run_id })).contradictions;
      if (queue.groups.some((g) => g.open) || contradictions.some((c) => c.open)) {
        return { run, groups: queue.groups, contradictions };
      }
    }
    return null;
  }

  async function loadQueue() {
    if (!state.runs.length) await loadRuns();
    const found = await findQueueRun();
    state.queueRun = found;
    const queue = $("queue");
    if (!found) {
      queue.replaceChildren(el("p", { class: "muted" }, t("queueNone")));
      return;
    }
    const run = found.run;
    const summary = run.outcome ? summaryOf(run) : (run.report || {}).summary || run.final_summary || "";
    const open = found.contradictions.filter((c) => c.open);
    queue.replaceChildren(
      el("p", { class: "muted" }, t("queueOf", { when: when(run.finished_at || run.created_at), summary })),
      // Contradictions first: only a person can say which memory is current.
      open.length ? el("h3", {}, t("contradictions")) : null,
      ...open.map((item) => contradictionCard(run, item)),
      found.groups.length ? el("h3", {}, t("proposals")) : null,
      ...found.groups.map((group) => proposalCard(run, group)),
    );
  }

  function proposalCard(run, group) {
    const decision = group.main;
    const sources = decision.sourceSlugs && decision.sourceSlugs.length ? decision.sourceSlugs : [decision.slug];
    const decide = (reject) =>
      guarded(async () => {
        await call("organize_apply", { run_id: run.run_id, keys: [group.key], reject });
        toast(t(reject ? "rejected" : "applied"));
        await refreshAll();
      });
    return el(
      "div",
      { class: "card proposal", "data-key": group.key },
      el("div", { class: "card-head" }, el("strong", {}, `${proposalTitle(group)}: ${sources.join(" + ")}`),
        group.state !== "pending" ? el("span", { class: "badge muted-badge" }, t(`state_${group.state}`)) : null),
      decision.description ? el("p", { class: "row-title" }, decision.description) : null,
      decision.body ? el("pre", { class: "body small" }, decision.body) : null,
      el("p", { class: "row-meta" }, proposalReason(group)),
      group.open
        ? el("div", { class: "actions" },
            button(t("apply"), () => decide(false), { class: "primary" }),
            button(t("reject"), () => decide(true)))
        : null,
    );
  }

  // Issue 18: what consolidation learned says its kind and its episodes in the page's
  // language (reasonParams); anything else shows its stored reason.
  function learned(group) {
    const params = group.main.reasonParams || {};
    if (group.kind !== "learn" || !Array.isArray(params.episodes)) return null;
    return { params, kind: word("learn", params.kind) };
  }

  function proposalTitle(group) {
    const found = learned(group);
    if (!found) return t(`kind_${group.kind}`);
    return t(found.params.update ? "learnUpdate" : "learnNew", { kind: found.kind });
  }

  function proposalReason(group) {
    const found = learned(group);
    if (!found) return group.main.reason || "";
    const episodes = found.params.episodes.join(state.lang === "zh" ? "、" : ", ");
    const count = found.params.episodes.length;
    return t(found.params.update ? "learnedMore" : "learnedFrom", { kind: found.kind, count, episodes });
  }

  function contradictionCard(run, item) {
    const resolve = (resolution, extra = {}) =>
      guarded(async () => {
        await call("organize_resolve", { run_id: run.run_id, key: item.key, resolution, ...extra });
        toast(t("resolved"));
        await refreshAll();
      });
    const side = (label, memory) =>
      el("div", { class: "side" }, el("span", { class: "row-meta" }, `${label} · ${memory.slug}`),
        el("p", { class: "row-title" }, memory.description || ""), el("pre", { class: "body small" }, memory.text || ""));
    const what = (item.differences || []).map((d) => `${(d.first || []).join(", ")} / ${(d.second || []).join(", ")}`).join("; ");
    return el(
      "div",
      { class: "card contradiction", "data-key": item.key },
      el("div", { class: "sides" }, side(t("first"), item.first), side(t("second"), item.second)),
      what ? el("p", { class: "row-meta" }, t("differs", { what })) : null,
      el("div", { class: "actions" },
        button(t("keepFirst"), () => resolve("keep_first")),
        button(t("keepSecond"), () => resolve("keep_second")),
        button(t("keepBoth"), () => resolve("keep_both")),
        button(t("edit"), async () => {
          const edited = await editText(t("editContradiction"), item.first.description || "", item.first.text || "");
          if (edited) resolve("edit", { body: edited.body, description: edited.description, keep: "first" });
        })),
    );
  }

  // --- organizer ---------------------------------------------------------------------------
  async function loadRuns() {
    const listing = await call("organize_run_list", { limit: RUNS_SHOWN });
    showRuns(listing.runs);
  }

  function phase(run) {
    return run.phase ? t(`phase_${run.phase}`) : "";
  }

  function showRuns(runs) {
    state.runs = runs;
    const rows = runs.map((run) =>
      el(
        "tr",
        { "data-run": run.run_id },
        el("td", {}, t(`status_${run.status}`)),
        el("td", {}, phase(run)),
        el("td", {}, t(`trigger_${run.trigger}`)),
        el("td", {}, t("counts", { input: run.input_count ?? 0, merged: run.merged_count ?? 0, deleted: run.deleted_count ?? 0 })),
        el("td", { class: "summary" }, summaryOf(run) || run.error || ""),
        el("td", { class: "times" }, when(run.created_at), run.finished_at ? el("br") : null, run.finished_at ? when(run.finished_at) : null),
      ),
    );
    const tbody = document.querySelector("#runs tbody");
    tbody.replaceChildren(...rows);
    if (!runs.length) tbody.append(el("tr", {}, el("td", { colspan: "6", class: "muted" }, t("noRuns"))));
    showProgress();
  }

  let watched = null; // the run "Run now" started: its progress is shown until it ends
  // When this page first saw each run queued: the store's clock may not be this machine's, so
  // how long a run has waited unclaimed is measured here.
  const seenQueued = new Map();

  function showProgress() {
    const status = $("organizer-status");
    const active = state.runs.find((r) => r.status === "running") || state.runs.find((r) => r.status === "pending");
    let line = t("statusIdle");
    if (active && active.status === "running") line = t("statusRunning", { phase: phase(active) });
    else if (active) line = t("statusQueued");
    if (!state.socketUp) line += ` ${t("statusOffline")}`;
    status.textContent = line;
    status.dataset.state = active ? active.status : "idle";

    const progress = $("progress");
    const run = watched && state.runs.find((r) => r.run_id === watched);
    if (!run) {
      progress.hidden = true;
      return;
    }
    progress.hidden = false;
    progress.dataset.status = run.status;
    if (run.status === "pending") {
      if (!seenQueued.has(run.run_id)) seenQueued.set(run.run_id, Date.now());
      const waited = Date.now() - seenQueued.get(run.run_id);
      progress.replaceChildren(el("p", {}, waited > UNCLAIMED_MS ? t("noRunner") : t("queued")));
    } else if (run.status === "running") {
      progress.replaceChildren(el("p", {}, t("running", { phase: phase(run) })));
    } else if (run.status === "succeeded") {
      progress.replaceChildren(
        el("p", {}, t("finished", { summary: summaryOf(run) })),
        button(t("openQueue"), () => switchTab("review"), { id: "open-queue" }),
      );
    } else {
      progress.replaceChildren(el("p", {}, t("failedRun", { status: t(`status_${run.status}`), error: run.error || "" })));
    }
  }

  async function runNow() {
    const answer = await call("organize_run_create", { trigger: "manual" });
    watched = answer.run.run_id;
    await loadRuns();
  }

  // --- journal -----------------------------------------------------------------------------
  async function loadJournal() {
    const answer = await call("memory_journal_days", { limit: JOURNAL_DAYS });
    const list = $("days");
    list.replaceChildren(
      ...answer.days.map((day) =>
        el("li", {}, el("button", { type: "button", class: "row", "data-date": day.date, onclick: () => guarded(() => showDay(day)) },
          el("span", { class: "row-title" }, day.date),
          el("span", { class: "row-meta" }, `${projectName(day)} · ${t("dayEntries", { count: day.entry_count })}`))),
      ),
    );
    if (!answer.days.length) list.append(el("li", { class: "muted empty" }, t("noDays")));
  }

  async function showDay(day) {
    const answer = await call("memory_journal_entries", { date: day.date });
    const items = answer.entries.map((entry) =>
      el("li", {}, el("span", {}, entry.text),
        entry.memories && entry.memories.length
          ? el("span", { class: "row-meta" }, t("relatedMemories", { slugs: entry.memories.map((m) => m.slug || m).join(", ") }))
          : null),
    );
    $("entries").replaceChildren(
      el("h2", { id: "day-title" }, day.date),
      items.length ? el("ul", { class: "entries" }, items) : el("p", { class: "muted" }, t("noEntries")),
    );
  }

  // --- tabs, projects, live updates --------------------------------------------------------
  const LOADERS = { memories: loadMemories, review: loadReview, organizer: loadRuns, journal: loadJournal };

  function switchTab(name) {
    state.tab = name;
    for (const tab of document.querySelectorAll("[role=tab]")) {
      const on = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.tabIndex = on ? 0 : -1;
    }
    for (const page of document.querySelectorAll(".page")) page.hidden = page.id !== `page-${name}`;
    guarded(LOADERS[name]);
  }

  async function refreshAll() {
    await guarded(LOADERS[state.tab]);
  }

  async function loadProjects() {
    const answer = await call("memory_projects", {});
    state.projects = answer.projects.filter((p) => p.scope === "project");
    const picker = $("project");
    const options = [el("option", { value: "all" }, t("allProjects")), el("option", { value: "global" }, t("global"))];
    state.projects.forEach((project, index) => options.push(el("option", { value: String(index) }, projectName(project))));
    picker.replaceChildren(...options);
    picker.value = String(state.project);
  }

  function connect() {
    const socket = new WebSocket(`ws://${location.host}/panel/ws`);
    let fallback = null;
    socket.onopen = () => {
      state.socketUp = true;
      showProgress();
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "runs") {
        const before = JSON.stringify(state.runs);
        showRuns(message.runs);
        if (state.tab === "review" && before !== JSON.stringify(message.runs)) guarded(loadQueue);
      } else if (message.type === "error") {
        showError(new PanelError(message, 503));
      }
    };
    socket.onclose = () => {
      state.socketUp = false;
      showProgress();
      // Until the socket is back, the runs are polled; then it is tried again.
      fallback = setInterval(() => guarded(loadRuns), POLL_MS * 2);
      setTimeout(() => {
        clearInterval(fallback);
        connect();
      }, POLL_MS * 5);
    };
  }

  function wire() {
    $("language").addEventListener("change", () => {
      state.lang = $("language").value;
      localStorage.setItem("liveagent-panel-lang", state.lang);
      applyLanguage();
      guarded(loadProjects);
      showRuns(state.runs);
      refreshAll();
    });
    $("project").addEventListener("change", () => {
      const value = $("project").value;
      state.project = value === "all" || value === "global" ? value : Number(value);
      state.selected = null;
      refreshAll();
    });
    for (const tab of document.querySelectorAll("[role=tab]")) {
      tab.addEventListener("click", () => switchTab(tab.dataset.tab));
      tab.addEventListener("keydown", (event) => {
        const tabs = [...document.querySelectorAll("[role=tab]")];
        const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
        if (!step) return;
        const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
        next.focus();
        switchTab(next.dataset.tab);
      });
    }
    $("search-form").addEventListener("submit", (event) => {
      event.preventDefault();
      guarded(loadMemories);
    });
    for (const id of ["filter-scope", "filter-type", "filter-unreviewed"]) {
      $(id).addEventListener("change", () => guarded(loadMemories));
    }
    $("error-close").addEventListener("click", () => ($("error").hidden = true));
    $("accept-all").addEventListener("click", () => guarded(acceptAll));
    $("run-now").addEventListener("click", () => guarded(runNow));
    setInterval(showProgress, POLL_MS); // "no runner" appears even when nothing changes
  }

  applyLanguage();
  wire();
  guarded(loadProjects);
  switchTab("memories");
  connect();
})();
