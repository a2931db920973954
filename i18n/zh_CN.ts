<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>About LiveAgent Memory</source>
        <translation>关于 LiveAgent 记忆</translation>
    </message>
    <message>
        <source>Version %1</source>
        <translation>版本 %1</translation>
    </message>
    <message>
        <source>Memory folder: %1</source>
        <translation>记忆文件夹：%1</translation>
    </message>
    <message>
        <source>Licence: %1</source>
        <translation>许可证：%1</translation>
    </message>
    <message>
        <source>Long-term memory for AI agents that a person can see, review and correct.</source>
        <translation>为 AI 智能体提供的长期记忆，人可以查看、审阅和修改。</translation>
    </message>
    <message>
        <source>LiveAgent Memory</source>
        <translation>LiveAgent 记忆</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <source>Compare and edit the merge into %1</source>
        <translation>比较并编辑合并到 %1 的内容</translation>
    </message>
    <message>
        <source>The memories of this merge side by side, and the text that will replace %1. Edit it before you apply; the others move to the trash.</source>
        <translation>并排显示这次合并涉及的记忆，以及将替换 %1 的文本。应用前可以编辑；其余记忆会移到回收站。</translation>
    </message>
    <message>
        <source>%1 (kept)</source>
        <translation>%1（保留）</translation>
    </message>
    <message>
        <source>%1 (merged in, then deleted)</source>
        <translation>%1（并入后删除）</translation>
    </message>
    <message>
        <source>(This memory no longer exists.)</source>
        <translation>（这条记忆已不存在。）</translation>
    </message>
    <message>
        <source>Merged text (what will be written)</source>
        <translation>合并后的文本（将写入的内容）</translation>
    </message>
    <message>
        <source>Checked for secrets and size when it is applied.</source>
        <translation>应用时会检查密钥和大小。</translation>
    </message>
    <message>
        <source>Back to the proposal</source>
        <translation>恢复为建议文本</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Use this text</source>
        <translation>使用此文本</translation>
    </message>
    <message>
        <source>Keep the text for this merge; apply it later</source>
        <translation>为这次合并保留此文本，稍后再应用</translation>
    </message>
    <message>
        <source>Apply this merge</source>
        <translation>应用此合并</translation>
    </message>
</context>
<context>
    <name>ContradictionEditDialog</name>
    <message>
        <source>Write the current text</source>
        <translation>写下现在的内容</translation>
    </message>
    <message>
        <source>Keep %1 (%2) with this text</source>
        <translation>保留 %1（%2），使用这段内容</translation>
    </message>
    <message>
        <source>Description (one line)</source>
        <translation>描述（一行）</translation>
    </message>
    <message>
        <source>It is saved as reviewed; the other memory moves to the trash.</source>
        <translation>它会保存为已审阅；另一条记忆移到回收站。</translation>
    </message>
    <message>
        <source>Save as current</source>
        <translation>保存为现在的说法</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
</context>
<context>
    <name>ContradictionPanel</name>
    <message>
        <source>These two disagree — which one is current?</source>
        <translation>这两条说法矛盾——哪一条是现在的？</translation>
    </message>
    <message>
        <source>Keep A</source>
        <translation>保留 A</translation>
    </message>
    <message>
        <source>Keep B</source>
        <translation>保留 B</translation>
    </message>
    <message>
        <source>Keep both</source>
        <translation>两条都保留</translation>
    </message>
    <message>
        <source>Both stay as they are; later runs do not ask again while neither changes</source>
        <translation>两条都保持原样；只要两条都没有改动，之后的整理不会再问</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Write the current text: it is kept, reviewed, and the other moves to the trash</source>
        <translation>写下现在的内容：它会保留并标为已审阅，另一条移到回收站</translation>
    </message>
    <message>
        <source>This memory no longer exists.</source>
        <translation>这条记忆已不存在。</translation>
    </message>
    <message>
        <source>What differs: %1</source>
        <translation>不同之处：%1</translation>
    </message>
    <message>
        <source>Keep %1; %2 moves to the trash (it can be restored)</source>
        <translation>保留 %1；%2 移到回收站（可以恢复）</translation>
    </message>
    <message>
        <source>Answered: %1 kept, the other moved to the trash.</source>
        <translation>已处理：保留了 %1，另一条已移到回收站。</translation>
    </message>
    <message>
        <source>Answered: both kept (%1).</source>
        <translation>已处理：两条都保留（%1）。</translation>
    </message>
    <message>
        <source>Answered: %1 now holds your text, the other moved to the trash.</source>
        <translation>已处理：%1 现在是你写的内容，另一条已移到回收站。</translation>
    </message>
    <message>
        <source>Answered.</source>
        <translation>已处理。</translation>
    </message>
    <message>
        <source>A memory changed or was deleted since this run: run the organizer again to compare them as they are now.</source>
        <translation>这次整理之后，有一条记忆被修改或删除了：请再整理一次，按现在的内容比较。</translation>
    </message>
    <message>
        <source>This run stored nothing to answer (a dry run).</source>
        <translation>这次整理没有保存可处理的内容（试运行）。</translation>
    </message>
    <message>
        <source>The last answer failed (%1); try again.</source>
        <translation>上次处理失败（%1）；请重试。</translation>
    </message>
</context>
<context>
    <name>DeleteConfirmBar</name>
    <message>
        <source>Delete them</source>
        <translation>删除它们</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n memories? Undo brings them back.</source>
        <translation>
            <numerusform>删除 %n 条记忆？可通过撤销找回。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <source>Unified</source>
        <translation>合并视图</translation>
    </message>
    <message>
        <source>Side by side</source>
        <translation>并排对比</translation>
    </message>
    <message>
        <source>How to show the change</source>
        <translation>改动的显示方式</translation>
    </message>
    <message>
        <source>No changes.</source>
        <translation>没有改动。</translation>
    </message>
</context>
<context>
    <name>ErrorBar</name>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Internal error: %1. This is a bug in the app, not something you did; the details are in the log. The page may be out of date: View → Refresh reloads it.</source>
        <translation>内部错误：%1。这是应用本身的缺陷，不是您的操作造成的；详细信息已写入日志。页面内容可能已过时：用“视图 → 刷新”重新加载。</translation>
    </message>
</context>
<context>
    <name>EvidenceView</name>
    <message numerus="yes">
        <source>%n memories selected</source>
        <translation>
            <numerusform>已选择 %n 条记忆</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>…and %n more</source>
        <translation>
            <numerusform>…还有 %n 条</numerusform>
        </translation>
    </message>
    <message>
        <source>Accept or delete them all with the buttons below.</source>
        <translation>可用下方按钮全部接受或全部删除。</translation>
    </message>
    <message>
        <source>Slug</source>
        <translation>标识名</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Review</source>
        <translation>审阅</translation>
    </message>
    <message>
        <source>unreviewed</source>
        <translation>未审阅</translation>
    </message>
    <message>
        <source>reviewed</source>
        <translation>已审阅</translation>
    </message>
    <message>
        <source>Risk</source>
        <translation>风险</translation>
    </message>
    <message>
        <source>%1: it reads like an instruction to the agent</source>
        <translation>%1：内容读起来像是给智能体的指令</translation>
    </message>
    <message>
        <source>%1 (lowered: the quote is too short)</source>
        <translation>%1（已降级：原话太短）</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Quote</source>
        <translation>原话</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>理由</translation>
    </message>
    <message>
        <source>Aliases</source>
        <translation>别名</translation>
    </message>
    <message>
        <source>Supersedes</source>
        <translation>取代</translation>
    </message>
    <message>
        <source>Conflicts with</source>
        <translation>冲突</translation>
    </message>
    <message>
        <source>Written by</source>
        <translation>写入者</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新</translation>
    </message>
    <message>
        <source>Links</source>
        <translation>链接</translation>
    </message>
    <message>
        <source>the organizer</source>
        <translation>整理器</translation>
    </message>
    <message>
        <source>a person</source>
        <translation>用户本人</translation>
    </message>
    <message>
        <source>extraction after a conversation</source>
        <translation>对话后的自动提取</translation>
    </message>
    <message>
        <source>an agent&apos;s memory tool</source>
        <translation>智能体的记忆工具</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>HistoryView</name>
    <message>
        <source>History of %1</source>
        <translation>%1 的历史</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Who</source>
        <translation>操作者</translation>
    </message>
    <message>
        <source>What</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>改动</translation>
    </message>
    <message>
        <source>Compare with:</source>
        <translation>对比对象：</translation>
    </message>
    <message>
        <source>Restore this version</source>
        <translation>恢复此版本</translation>
    </message>
    <message>
        <source>Restoring a change brings back the memory as it was just before that change; restoring a deleted copy brings that copy back. The text it replaces stays in this history, so a restore can itself be undone.</source>
        <translation>恢复某次改动，会让记忆回到该改动之前的样子；恢复已删除的副本，会把该副本找回。被替换的文本仍保留在历史中，因此恢复操作本身也可以撤销。</translation>
    </message>
    <message>
        <source>a person</source>
        <translation>用户本人</translation>
    </message>
    <message>
        <source>an agent&apos;s memory tool</source>
        <translation>智能体的记忆工具</translation>
    </message>
    <message>
        <source>extraction</source>
        <translation>自动提取</translation>
    </message>
    <message>
        <source>the organizer</source>
        <translation>整理器</translation>
    </message>
    <message>
        <source>a change on disk</source>
        <translation>磁盘上的改动</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Current version</source>
        <translation>当前版本</translation>
    </message>
    <message>
        <source>Deleted (copy in the trash)</source>
        <translation>已删除（副本在回收站）</translation>
    </message>
    <message>
        <source>Before an organizer change</source>
        <translation>整理器改动之前</translation>
    </message>
    <message>
        <source>Undone</source>
        <translation>已撤销</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>Changed</source>
        <translation>已修改</translation>
    </message>
    <message>
        <source>Accepted</source>
        <translation>已接受</translation>
    </message>
    <message>
        <source>Restored</source>
        <translation>已恢复</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>Changed in a batch</source>
        <translation>批量修改</translation>
    </message>
    <message>
        <source>Changed on disk</source>
        <translation>在磁盘上被修改</translation>
    </message>
    <message>
        <source>Moved to quarantine</source>
        <translation>已移入隔离区</translation>
    </message>
    <message>
        <source>the current version</source>
        <translation>当前版本</translation>
    </message>
    <message>
        <source>%1 (same text as now)</source>
        <translation>%1（与当前文本相同）</translation>
    </message>
    <message>
        <source>Nothing to restore: this change kept no earlier text</source>
        <translation>无可恢复：此改动未保留之前的文本</translation>
    </message>
    <message>
        <source>The text of this version can no longer be read.</source>
        <translation>这个版本的文本已无法读取。</translation>
    </message>
    <message>
        <source>This version has no text to compare.</source>
        <translation>这个版本没有可对比的文本。</translation>
    </message>
    <message>
        <source>From %1 to %2</source>
        <translation>从 %1 到 %2</translation>
    </message>
    <message>
        <source>Description: %1</source>
        <translation>描述：%1</translation>
    </message>
    <message>
        <source>Type: %1 · Scope: %2</source>
        <translation>类型：%1 · 范围：%2</translation>
    </message>
    <message>
        <source>Needs review</source>
        <translation>待审阅</translation>
    </message>
    <message>
        <source>Reviewed</source>
        <translation>已审阅</translation>
    </message>
    <message>
        <source>Confidence: %1 · Quote: %2</source>
        <translation>置信度：%1 · 原话：%2</translation>
    </message>
    <message>
        <source>This memory has no recorded history yet.</source>
        <translation>这条记忆还没有历史记录。</translation>
    </message>
    <message>
        <source>The memory as it is now.</source>
        <translation>这条记忆现在的样子。</translation>
    </message>
    <message>
        <source>The copy that was moved to the trash.</source>
        <translation>被移到回收站的副本。</translation>
    </message>
    <message>
        <source>The copy taken before the organizer changed it.</source>
        <translation>整理器修改它之前保存的副本。</translation>
    </message>
    <message>
        <source>The memory just before this change: what restoring it brings back.</source>
        <translation>这次修改之前的记忆：恢复它就会回到这个样子。</translation>
    </message>
    <message>
        <source>Description then: %1</source>
        <translation>当时的描述：%1</translation>
    </message>
    <message>
        <source>Reason: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>Conversation: %1</source>
        <translation>对话：%1</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <source>This change kept no earlier text, so there is nothing to restore.</source>
        <translation>此改动未保留之前的文本，因此无可恢复。</translation>
    </message>
</context>
<context>
    <name>JournalPage</name>
    <message>
        <source>Journal</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Search the journal (English or 中文)…</source>
        <translation>搜索日志（English 或中文）…</translation>
    </message>
    <message>
        <source>Search journal entries only (Ctrl+F)</source>
        <translation>仅搜索日志条目（Ctrl+F）</translation>
    </message>
    <message>
        <source>Bold days have journal entries. Alt+Left / Alt+Right: previous / next one.</source>
        <translation>粗体日期有日志条目。Alt+Left / Alt+Right：上一个 / 下一个。</translation>
    </message>
    <message>
        <source>Search the journal</source>
        <translation>搜索日志</translation>
    </message>
    <message>
        <source>Previous day with entries</source>
        <translation>上一个有条目的日期</translation>
    </message>
    <message>
        <source>Next day with entries</source>
        <translation>下一个有条目的日期</translation>
    </message>
    <message>
        <source>Archived — read-only</source>
        <translation>已归档 — 只读</translation>
    </message>
    <message>
        <source>Journals older than the retention period are archived and cannot change.</source>
        <translation>超过保留期限的日志已归档，不能再修改。</translation>
    </message>
    <message>
        <source>All journals</source>
        <translation>全部日志</translation>
    </message>
    <message>
        <source>Global journal</source>
        <translation>全局日志</translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n 个条目</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (archived, read-only)</source>
        <translation>%1（已归档，只读）</translation>
    </message>
    <message>
        <source>Days with entries</source>
        <translation>有条目的日期</translation>
    </message>
    <message>
        <source>archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>No journal entries yet.</source>
        <translation>还没有日志条目。</translation>
    </message>
    <message numerus="yes">
        <source>Showing the newest %n days; the calendar shows the rest.</source>
        <translation>
            <numerusform>显示最近 %n 天；其余日期请在日历中查看。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n days with entries</source>
        <translation>
            <numerusform>%n 天有条目</numerusform>
        </translation>
    </message>
    <message>
        <source>Matching days</source>
        <translation>匹配的日期</translation>
    </message>
    <message numerus="yes">
        <source>%n matching days</source>
        <translation>
            <numerusform>%n 天匹配</numerusform>
        </translation>
    </message>
    <message>
        <source>No journal entry mentions “%1”.</source>
        <translation>没有日志条目提到“%1”。</translation>
    </message>
    <message>
        <source>Nothing on this day.</source>
        <translation>这一天没有内容。</translation>
    </message>
    <message>
        <source>No journal entries yet. The agent adds a page for each day it works.</source>
        <translation>还没有日志条目。智能体每工作一天就会添加一页。</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Appended</source>
        <translation>追加时间</translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation>触发方式</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>No sources recorded.</source>
        <translation>没有记录来源。</translation>
    </message>
    <message numerus="yes">
        <source>Agent episodes (%n)</source>
        <translation>
            <numerusform>智能体任务记录（%n）</numerusform>
        </translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务类型</translation>
    </message>
    <message>
        <source>Goal</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>partly done</source>
        <translation>部分完成</translation>
    </message>
    <message>
        <source>Memories from this conversation:</source>
        <translation>来自这次对话的记忆：</translation>
    </message>
</context>
<context>
    <name>LearningPage</name>
    <message>
        <source>Learning</source>
        <translation>学习</translation>
    </message>
    <message numerus="yes">
        <source>Last %n day(s)</source>
        <translation>
            <numerusform>最近 %n 天</numerusform>
        </translation>
    </message>
    <message>
        <source>Contexts per day and hit rate</source>
        <translation>每天的上下文与命中率</translation>
    </message>
    <message>
        <source>Tokens saved against loading everything</source>
        <translation>相比全部加载节省的 token</translation>
    </message>
    <message>
        <source>Contexts searched by keywords alone</source>
        <translation>仅靠关键词搜索的上下文</translation>
    </message>
    <message>
        <source>Task types</source>
        <translation>任务类型</translation>
    </message>
    <message>
        <source>What consolidation proposed</source>
        <translation>整合提出的建议</translation>
    </message>
    <message>
        <source>Proposed</source>
        <translation>提出时间</translation>
    </message>
    <message>
        <source>Proposal</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Learned</source>
        <translation>学到的内容</translation>
    </message>
    <message>
        <source>Episodes</source>
        <translation>经历</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Nothing proposed yet. Learn from episodes on the Organizer page turns the agents&apos; repeated errors and steps into anti-patterns and skills for you to review.</source>
        <translation>还没有建议。在整理器页面点击“从经历中学习”，会把智能体反复出现的错误和步骤整理成反模式和技能，供你审阅。</translation>
    </message>
    <message>
        <source>Patterns and skills used by contexts</source>
        <translation>上下文用到的模式与技能</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Times</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>Last used</source>
        <translation>最近使用</translation>
    </message>
    <message>
        <source>No pattern, skill or anti-pattern has been shown in a context yet. They are counted here each time an agent&apos;s context includes one.</source>
        <translation>还没有任何模式、技能或反模式出现在上下文中。智能体的上下文每用到一条，这里就记一次。</translation>
    </message>
    <message>
        <source>No contexts yet: each time an agent asks for its memory, it counts here.</source>
        <translation>还没有上下文：智能体每次调取记忆，都会记在这里。</translation>
    </message>
    <message>
        <source>%1 contexts since %2 · %3 showed memory · %4 tokens saved</source>
        <translation>自 %2 起共 %1 次上下文 · %3 含有记忆 · 节省 %4 个 token</translation>
    </message>
    <message>
        <source>No contexts in these days</source>
        <translation>这段时间没有上下文</translation>
    </message>
    <message>
        <source>contexts</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>hit rate</source>
        <translation>命中率</translation>
    </message>
    <message>
        <source>tokens saved</source>
        <translation>节省的 token</translation>
    </message>
    <message>
        <source>keyword only</source>
        <translation>仅关键词</translation>
    </message>
    <message>
        <source>pattern</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>anti-pattern</source>
        <translation>反模式</translation>
    </message>
</context>
<context>
    <name>LokiImportBar</name>
    <message>
        <source>Preview import</source>
        <translation>预览导入</translation>
    </message>
    <message>
        <source>List what importing the chosen Loki Mode store would add, writing nothing</source>
        <translation>列出导入所选 Loki Mode 存储会添加的内容，不写入任何东西</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Import the chosen Loki Mode store&apos;s episodes, patterns and skills; the memories it adds wait for your review</source>
        <translation>导入所选 Loki Mode 存储的任务记录、模式和技能；新增的记忆会等待你审阅</translation>
    </message>
    <message>
        <source>Importing…</source>
        <translation>正在导入…</translation>
    </message>
    <message>
        <source>Choose a Loki Mode store above to import it.</source>
        <translation>在上方选择一个 Loki Mode 存储即可导入。</translation>
    </message>
    <message>
        <source>Import %1 into this store.</source>
        <translation>将 %1 导入此存储。</translation>
    </message>
    <message numerus="yes">
        <source>Would import %n new or changed entries</source>
        <translation>
            <numerusform>将导入 %n 条新增或更改的条目</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported %n new or changed entries</source>
        <translation>
            <numerusform>已导入 %n 条新增或更改的条目</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n already here</source>
        <translation>
            <numerusform>%n 条已存在</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n problems</source>
        <translation>
            <numerusform>%n 个问题</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Opening the memory store…</source>
        <translation>正在打开记忆库…</translation>
    </message>
    <message>
        <source>LiveAgent Memory</source>
        <translation>LiveAgent 记忆</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>About LiveAgent Memory</source>
        <translation>关于 LiveAgent 记忆</translation>
    </message>
</context>
<context>
    <name>MemoriesPage</name>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>All scopes</source>
        <translation>全部范围</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>Projects</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>All types</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation>反馈</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参考</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Reviewed and unreviewed</source>
        <translation>已审阅和未审阅</translation>
    </message>
    <message>
        <source>Unreviewed</source>
        <translation>未审阅</translation>
    </message>
    <message>
        <source>Reviewed</source>
        <translation>已审阅</translation>
    </message>
    <message>
        <source>Any confidence</source>
        <translation>任意置信度</translation>
    </message>
    <message>
        <source>High confidence</source>
        <translation>高置信度</translation>
    </message>
    <message>
        <source>Medium confidence</source>
        <translation>中置信度</translation>
    </message>
    <message>
        <source>Low confidence</source>
        <translation>低置信度</translation>
    </message>
    <message>
        <source>Unknown confidence</source>
        <translation>置信度未知</translation>
    </message>
    <message>
        <source>Any risk flag</source>
        <translation>任意风险标记</translation>
    </message>
    <message>
        <source>Risk flagged</source>
        <translation>有风险标记</translation>
    </message>
    <message>
        <source>Not flagged</source>
        <translation>无风险标记</translation>
    </message>
    <message>
        <source>All projects</source>
        <translation>全部项目</translation>
    </message>
    <message>
        <source>Global memories, or the ones bound to a project</source>
        <translation>全局记忆，或绑定到某个项目的记忆</translation>
    </message>
    <message>
        <source>Unreviewed memories were written by an agent</source>
        <translation>未审阅的记忆由智能体写入</translation>
    </message>
    <message>
        <source>Flagged memories read like instructions to the agent; review them</source>
        <translation>带风险标记的记忆读起来像是给智能体的指令，请审阅</translation>
    </message>
    <message>
        <source>Search memories (English or 中文)…</source>
        <translation>搜索记忆（English 或中文）…</translation>
    </message>
    <message>
        <source>Folder unknown (project %1)</source>
        <translation>文件夹未知（项目 %1）</translation>
    </message>
    <message>
        <source>No memory selected.</source>
        <translation>未选择记忆。</translation>
    </message>
    <message>
        <source>No memory matches the search and filters.</source>
        <translation>没有符合搜索和筛选条件的记忆。</translation>
    </message>
    <message>
        <source>No memories yet. An agent adds them as it works, or press New to write one.</source>
        <translation>还没有记忆。智能体会在工作时添加，你也可以点“新建”自己写一条。</translation>
    </message>
    <message>
        <source>Accepted.</source>
        <translation>已接受。</translation>
    </message>
    <message>
        <source>The selected memories are already reviewed.</source>
        <translation>选中的记忆已经审阅过了。</translation>
    </message>
    <message numerus="yes">
        <source>Accepted %n memories.</source>
        <translation>
            <numerusform>已接受 %n 条记忆。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n memories. Undo (%1) brings them back.</source>
        <translation>
            <numerusform>已删除 %n 条记忆。撤销（%1）可找回。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Brought back %n memories.</source>
        <translation>
            <numerusform>已找回 %n 条记忆。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Undid accepting %n memories: they wait for review again.</source>
        <translation>
            <numerusform>已撤销接受 %n 条记忆：它们重新等待审阅。</numerusform>
        </translation>
    </message>
    <message>
        <source>Undid the edit: the text before it is back.</source>
        <translation>已撤销编辑：编辑前的文本已恢复。</translation>
    </message>
    <message>
        <source>%1: one version kept; the other is in its history.</source>
        <translation>%1：已保留一个版本；另一个保存在它的历史中。</translation>
    </message>
</context>
<context>
    <name>MemoryActions</name>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Search memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <source>New…</source>
        <translation>新建…</translation>
    </message>
    <message>
        <source>Write a new memory</source>
        <translation>写一条新记忆</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Change this memory&apos;s text or evidence</source>
        <translation>修改这条记忆的文本或证据</translation>
    </message>
    <message>
        <source>Accept</source>
        <translation>接受</translation>
    </message>
    <message>
        <source>Mark the selected memories reviewed</source>
        <translation>将选中的记忆标记为已审阅</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Move the selected memories to the trash</source>
        <translation>将选中的记忆移到回收站</translation>
    </message>
    <message>
        <source>Take back the last accept, edit or delete</source>
        <translation>撤回上一次接受、编辑或删除</translation>
    </message>
    <message>
        <source>Review…</source>
        <translation>审阅…</translation>
    </message>
    <message>
        <source>Go through the unreviewed memories one at a time, by keyboard</source>
        <translation>用键盘逐条审阅未审阅的记忆</translation>
    </message>
    <message>
        <source>Undo accept</source>
        <translation>撤销接受</translation>
    </message>
    <message>
        <source>Undo edit</source>
        <translation>撤销编辑</translation>
    </message>
    <message>
        <source>Undo delete</source>
        <translation>撤销删除</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>History…</source>
        <translation>历史…</translation>
    </message>
    <message>
        <source>Earlier versions; restore one</source>
        <translation>查看早期版本并恢复</translation>
    </message>
</context>
<context>
    <name>MemoryDialogs</name>
    <message>
        <source>Saved with %1 confidence: high needs a verbatim quote of at least 5 characters, medium needs a quote.</source>
        <translation>已按 %1 置信度保存：高置信度需要至少 5 个字符的逐字原话，中置信度需要原话。</translation>
    </message>
    <message>
        <source>Saved and marked for review: the text reads like an instruction to the agent.</source>
        <translation>已保存并标记为待审阅：文本读起来像是给智能体的指令。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Restored. The text it replaced is the newest version in the history.</source>
        <translation>已恢复。被替换的文本已作为最新版本保存在历史中。</translation>
    </message>
</context>
<context>
    <name>MemoryEditor</name>
    <message>
        <source>New memory</source>
        <translation>新建记忆</translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <source>&amp;Slug</source>
        <translation>标识名(&amp;S)</translation>
    </message>
    <message>
        <source>S&amp;cope</source>
        <translation>范围(&amp;C)</translation>
    </message>
    <message>
        <source>Project &amp;folder</source>
        <translation>项目文件夹(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Type</source>
        <translation>类型(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Description</source>
        <translation>描述(&amp;D)</translation>
    </message>
    <message>
        <source>C&amp;onfidence</source>
        <translation>置信度(&amp;O)</translation>
    </message>
    <message>
        <source>Source &amp;quote</source>
        <translation>原话(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Reasoning</source>
        <translation>理由(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Aliases</source>
        <translation>别名(&amp;A)</translation>
    </message>
    <message>
        <source>lowercase-words-with-dashes, e.g. tea-preference</source>
        <translation>小写单词用连字符连接，例如 tea-preference</translation>
    </message>
    <message>
        <source>One line the agent sees in its index</source>
        <translation>智能体在索引中看到的一行说明</translation>
    </message>
    <message>
        <source>What to remember (Markdown)</source>
        <translation>要记住的内容（Markdown）</translation>
    </message>
    <message>
        <source>The person&apos;s own words, verbatim</source>
        <translation>用户的原话，逐字记录</translation>
    </message>
    <message>
        <source>Why this is worth remembering</source>
        <translation>为什么值得记住</translation>
    </message>
    <message>
        <source>Other names, separated by commas</source>
        <translation>其他名称，用逗号分隔</translation>
    </message>
    <message>
        <source>The project&apos;s folder</source>
        <translation>项目的文件夹</translation>
    </message>
    <message>
        <source>Te&amp;xt</source>
        <translation>文本(&amp;X)</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <source>High confidence needs a verbatim quote of at least 5 characters and medium needs a quote; otherwise the memory is saved with a lower confidence.</source>
        <translation>高置信度需要至少 5 个字符的逐字原话，中置信度需要原话；否则记忆会以较低的置信度保存。</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation>反馈</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参考</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>High</source>
        <translation>高</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>Low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>Give the memory a slug.</source>
        <translation>请为这条记忆填写标识名。</translation>
    </message>
    <message>
        <source>Choose the project folder this memory belongs to.</source>
        <translation>请选择这条记忆所属的项目文件夹。</translation>
    </message>
    <message>
        <source>Write a one-line description.</source>
        <translation>请写一行描述。</translation>
    </message>
    <message>
        <source>The text cannot be empty.</source>
        <translation>文本不能为空。</translation>
    </message>
    <message>
        <source>Details: %1</source>
        <translation>详情（英文）：%1</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
</context>
<context>
    <name>MemoryListModel</name>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Review</source>
        <translation>审阅</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Risk</source>
        <translation>风险</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新</translation>
    </message>
    <message>
        <source>Folder unknown (project %1)</source>
        <translation>文件夹未知（项目 %1）</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Unreviewed</source>
        <translation>未审阅</translation>
    </message>
    <message>
        <source>Not reviewed by a person yet</source>
        <translation>尚未经人审阅</translation>
    </message>
    <message>
        <source>Reads like an instruction to the agent: review it</source>
        <translation>读起来像是给智能体的指令：请审阅</translation>
    </message>
</context>
<context>
    <name>MemoryListPane</name>
    <message numerus="yes">
        <source>%n memories</source>
        <translation>
            <numerusform>%n 条记忆</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MergeFoldersBar</name>
    <message>
        <source>Merge folders…</source>
        <translation>合并文件夹…</translation>
    </message>
    <message>
        <source>This project is kept in several folders (it was used on two machines before they synced): move every memory into the folder this row opens</source>
        <translation>此项目保存在多个文件夹中（同步之前在两台机器上使用过）：把所有记忆移到这一行打开的文件夹</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>合并</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message numerus="yes">
        <source>Move %n memories from folder %1 into %2?</source>
        <translation>
            <numerusform>把 %n 条记忆从文件夹 %1 移到 %2？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n are here already with the same text and are kept once</source>
        <translation>
            <numerusform>%n 条内容相同，只保留一份</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n differ and are kept side by side, unreviewed</source>
        <translation>
            <numerusform>%n 条内容不同，两份并存，待审核</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n episodes move too</source>
        <translation>
            <numerusform>%n 条任务记录一并移动</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n files cannot be read and stay</source>
        <translation>
            <numerusform>%n 个文件无法读取，留在原处</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelPage</name>
    <message>
        <source>Model &amp; keys</source>
        <translation>模型与密钥</translation>
    </message>
    <message>
        <source>Default model</source>
        <translation>默认模型</translation>
    </message>
    <message>
        <source>Extraction model</source>
        <translation>提取模型</translation>
    </message>
    <message>
        <source>Organizer model</source>
        <translation>整理器模型</translation>
    </message>
    <message>
        <source>Used for chat, and for extraction and the organizer when they have no model of their own.</source>
        <translation>用于对话；提取和整理器未单独设置模型时也使用它。</translation>
    </message>
    <message>
        <source>Reads each conversation turn and proposes memories. Empty = use the default model.</source>
        <translation>读取每轮对话并提出记忆建议。留空 = 使用默认模型。</translation>
    </message>
    <message>
        <source>Tidies memories (merges, rewrites, deletions). Empty = use the default model.</source>
        <translation>整理记忆（合并、改写、删除）。留空 = 使用默认模型。</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>接口地址：</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>A litellm model name: provider/model, e.g. openai/gpt-4o-mini</source>
        <translation>litellm 模型名：provider/model，例如 openai/gpt-4o-mini</translation>
    </message>
    <message>
        <source>Only for OpenAI-compatible servers and local models (Ollama, vLLM).</source>
        <translation>仅用于兼容 OpenAI 的服务器和本地模型（Ollama、vLLM）。</translation>
    </message>
    <message>
        <source>e.g. openai/gpt-4o-mini</source>
        <translation>例如 openai/gpt-4o-mini</translation>
    </message>
    <message>
        <source>empty = use the default model</source>
        <translation>留空 = 使用默认模型</translation>
    </message>
    <message>
        <source>empty = the provider&apos;s own server</source>
        <translation>留空 = 使用服务商自己的服务器</translation>
    </message>
    <message>
        <source>Save key</source>
        <translation>保存密钥</translation>
    </message>
    <message>
        <source>Clear key</source>
        <translation>清除密钥</translation>
    </message>
    <message>
        <source>Delete this purpose&apos;s key from the keyring</source>
        <translation>从系统密钥环中删除此用途的密钥</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Send one tiny request to the model shown above</source>
        <translation>向上方的模型发送一个极小的请求</translation>
    </message>
    <message>
        <source>Extraction options</source>
        <translation>提取选项</translation>
    </message>
    <message>
        <source>Extract memories after each conversation turn</source>
        <translation>每轮对话后提取记忆</translation>
    </message>
    <message>
        <source>Reviewer mode:</source>
        <translation>审阅模式：</translation>
    </message>
    <message>
        <source>Strict: only what the user stated explicitly</source>
        <translation>严格：只记录用户明确说过的内容</translation>
    </message>
    <message>
        <source>Standard: explicit statements and clear preferences</source>
        <translation>标准：明确的陈述和清晰的偏好</translation>
    </message>
    <message>
        <source>Lenient: also likely-useful facts, reviewed later</source>
        <translation>宽松：也记录可能有用的事实，稍后审阅</translation>
    </message>
    <message>
        <source>Save settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <source>Save the models and options (Ctrl+S)</source>
        <translation>保存模型和选项（Ctrl+S）</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Discard unsaved changes</source>
        <translation>放弃未保存的更改</translation>
    </message>
    <message>
        <source>API keys cannot be stored on this system.</source>
        <translation>此系统无法存储 API 密钥。</translation>
    </message>
    <message>
        <source>A key is stored in the system keyring.</source>
        <translation>已有密钥存储在系统密钥环中。</translation>
    </message>
    <message>
        <source>No key of its own: the default model&apos;s key is used.</source>
        <translation>没有单独的密钥：使用默认模型的密钥。</translation>
    </message>
    <message>
        <source>No key stored; the environment variable %1 is used.</source>
        <translation>未存储密钥；使用环境变量 %1。</translation>
    </message>
    <message>
        <source>No key stored.</source>
        <translation>未存储密钥。</translation>
    </message>
    <message>
        <source>Checking the keyring…</source>
        <translation>正在检查系统密钥环…</translation>
    </message>
    <message>
        <source>Details: %1</source>
        <translation>详情（英文）：%1</translation>
    </message>
    <message>
        <source>Paste a key to store it in the system keyring</source>
        <translation>粘贴密钥，将其存入系统密钥环</translation>
    </message>
    <message>
        <source>Testing…</source>
        <translation>正在测试…</translation>
    </message>
    <message>
        <source>%1 answered in %2 ms.</source>
        <translation>%1 在 %2 毫秒内作答。</translation>
    </message>
    <message>
        <source>Reply: “%1”</source>
        <translation>回复：“%1”</translation>
    </message>
    <message>
        <source>Unsaved changes.</source>
        <translation>有未保存的更改。</translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation>设置已保存。</translation>
    </message>
    <message>
        <source>The key is stored in the system keyring.</source>
        <translation>密钥已存入系统密钥环。</translation>
    </message>
    <message>
        <source>The key was deleted from the keyring.</source>
        <translation>密钥已从系统密钥环中删除。</translation>
    </message>
    <message>
        <source>No key was stored for this model.</source>
        <translation>此模型没有存储密钥。</translation>
    </message>
</context>
<context>
    <name>Organizer</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
</context>
<context>
    <name>OrganizerPage</name>
    <message>
        <source>Organizer</source>
        <translation>整理器</translation>
    </message>
    <message>
        <source>Run now</source>
        <translation>立即运行</translation>
    </message>
    <message>
        <source>Cancel the run</source>
        <translation>停止正在进行的运行</translation>
    </message>
    <message>
        <source>Save the organizer settings</source>
        <translation>保存整理器设置</translation>
    </message>
    <message>
        <source>Apply the checked decisions</source>
        <translation>应用已勾选的决策</translation>
    </message>
    <message>
        <source>Compare and edit…</source>
        <translation>比较并编辑…</translation>
    </message>
    <message>
        <source>The memories of this merge side by side; edit the merged text (Enter)</source>
        <translation>并排比较这次合并的记忆，并编辑合并后的文本（Enter）</translation>
    </message>
    <message>
        <source>Decisions</source>
        <translation>决策</translation>
    </message>
    <message>
        <source>Reject the current decision (in the review queue)</source>
        <translation>拒绝当前决策（在审阅队列中）</translation>
    </message>
    <message>
        <source>Select a run to see its details.</source>
        <translation>选择一次运行以查看详情。</translation>
    </message>
    <message>
        <source>Select a decision to preview its change.</source>
        <translation>选择一项决策以预览其改动。</translation>
    </message>
    <message>
        <source>Nothing to preview.</source>
        <translation>没有可预览的内容。</translation>
    </message>
    <message>
        <source>%1 run, %2: scope %3, mode %4</source>
        <translation>%1运行，%2：范围 %3，模式 %4</translation>
    </message>
    <message>
        <source>(dry run)</source>
        <translation>（试运行）</translation>
    </message>
    <message>
        <source>Report from an older version (read-only):</source>
        <translation>旧版本的报告（只读）：</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>In progress; phase: %1.</source>
        <translation>进行中；阶段：%1。</translation>
    </message>
    <message>
        <source>Memories %1 → %2 · clusters %3 · applied %4 · held back %5 · tokens %6</source>
        <translation>记忆 %1 → %2 · 聚类 %3 · 已应用 %4 · 暂缓 %5 · 令牌数 %6</translation>
    </message>
    <message>
        <source>Held back: %1</source>
        <translation>暂缓：%1</translation>
    </message>
    <message>
        <source>Merge in %1</source>
        <translation>并入 %1</translation>
    </message>
    <message>
        <source>Rewrite</source>
        <translation>改写</translation>
    </message>
    <message>
        <source>Delete (merged into %1)</source>
        <translation>删除（已合并到 %1）</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Write the merged text</source>
        <translation>写入合并后的文本</translation>
    </message>
    <message numerus="yes">
        <source>Contradictions (%n)</source>
        <translation>
            <numerusform>矛盾（%n）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 no longer exists.</source>
        <translation>%1 已不存在。</translation>
    </message>
    <message>
        <source>%1 moves to the trash (it can be restored).</source>
        <translation>%1 将移到回收站（可以恢复）。</translation>
    </message>
    <message>
        <source>%1: current text → after the change</source>
        <translation>%1：当前文本 → 改动后</translation>
    </message>
    <message numerus="yes">
        <source>%n decision(s) rejected.</source>
        <translation>
            <numerusform>已拒绝 %n 项决策。</numerusform>
        </translation>
    </message>
    <message>
        <source>The decisions not applied were rejected.</source>
        <translation>未应用的决策已被拒绝。</translation>
    </message>
    <message numerus="yes">
        <source>%n decision(s) applied</source>
        <translation>
            <numerusform>已应用 %n 项决策</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n failed</source>
        <translation>
            <numerusform>%n 项失败</numerusform>
        </translation>
    </message>
    <message>
        <source>Memories now: %1.</source>
        <translation>现有记忆：%1。</translation>
    </message>
</context>
<context>
    <name>OrganizerSettingsBox</name>
    <message>
        <source>Schedule and model</source>
        <translation>计划与模型</translation>
    </message>
    <message>
        <source>Show or hide the organizer&apos;s schedule and model</source>
        <translation>显示或隐藏整理器的计划与模型</translation>
    </message>
    <message>
        <source>Frequency</source>
        <translation>频率</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Weekday</source>
        <translation>星期</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>接口地址</translation>
    </message>
    <message>
        <source>Conservative merges only near-identical memories; aggressive also merges across types and scopes. Manual runs always wait for your review.</source>
        <translation>保守模式只合并几乎相同的记忆；激进模式还会跨类型和范围合并。手动运行总会等待你审阅。</translation>
    </message>
    <message>
        <source>Empty: use the default model</source>
        <translation>留空：使用默认模型</translation>
    </message>
    <message>
        <source>Optional, e.g. http://localhost:11434</source>
        <translation>可选，例如 http://localhost:11434</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save the organizer settings (Ctrl+S)</source>
        <translation>保存整理器设置（Ctrl+S）</translation>
    </message>
    <message>
        <source>After each scheduled run, learn from the agents&apos; episodes</source>
        <translation>每次定时运行后，从智能体的经历中学习</translation>
    </message>
    <message>
        <source>Proposes anti-patterns, skills and patterns for your review, as Learn from episodes does; nothing is applied until you accept it</source>
        <translation>与“从经历中学习”相同，提出反模式、技能和模式供你审阅；在你接受之前不会应用任何内容</translation>
    </message>
    <message>
        <source>Never (manual only)</source>
        <translation>从不（仅手动）</translation>
    </message>
    <message>
        <source>Daily</source>
        <translation>每天</translation>
    </message>
    <message>
        <source>Weekly</source>
        <translation>每周</translation>
    </message>
    <message>
        <source>All memories</source>
        <translation>全部记忆</translation>
    </message>
    <message>
        <source>Global memories</source>
        <translation>全局记忆</translation>
    </message>
    <message>
        <source>Project memories</source>
        <translation>项目记忆</translation>
    </message>
    <message>
        <source>Conservative</source>
        <translation>保守</translation>
    </message>
    <message>
        <source>Standard</source>
        <translation>标准</translation>
    </message>
    <message>
        <source>Aggressive</source>
        <translation>激进</translation>
    </message>
    <message>
        <source>Runs use %1.</source>
        <translation>运行使用 %1。</translation>
    </message>
    <message>
        <source>Runs use the default model, %1.</source>
        <translation>运行使用默认模型 %1。</translation>
    </message>
    <message>
        <source>No model configured: runs use the offline duplicate check.</source>
        <translation>未配置模型：运行将使用离线重复检查。</translation>
    </message>
    <message>
        <source>offline duplicate check</source>
        <translation>离线重复检查</translation>
    </message>
    <message>
        <source>then learning from episodes</source>
        <translation>随后从经历中学习</translation>
    </message>
</context>
<context>
    <name>ProblemsPanel</name>
    <message>
        <source>These files could not be read, so they are not listed. They stay on disk untouched; fix or remove them by hand. A sync conflict (two versions of one memory) is resolved here: choose it, then Resolve.</source>
        <translation>这些文件无法读取，因此没有列出。它们原样保留在磁盘上；请手动修复或移除。同步冲突（同一条记忆的两个版本）在这里解决：选中它，然后点“解决”。</translation>
    </message>
    <message>
        <source>Resolve…</source>
        <translation>解决…</translation>
    </message>
    <message>
        <source>Show both versions side by side and keep one, or a merged text</source>
        <translation>并排显示两个版本，保留其中一个，或保留合并后的文本</translation>
    </message>
    <message numerus="yes">
        <source>Problems (%n)</source>
        <translation>
            <numerusform>问题文件（%n）</numerusform>
        </translation>
    </message>
    <message>
        <source>Files in the memory folder that could not be read</source>
        <translation>记忆文件夹中无法读取的文件</translation>
    </message>
</context>
<context>
    <name>ProjectsPage</name>
    <message>
        <source>Projects</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Exists</source>
        <translation>存在</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation>反馈</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参考</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Journal</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Unreviewed</source>
        <translation>未审阅</translation>
    </message>
    <message>
        <source>Used / limit</source>
        <translation>已用 / 上限</translation>
    </message>
    <message>
        <source>Show memories</source>
        <translation>查看记忆</translation>
    </message>
    <message>
        <source>Open the Memories page for this row (Enter)</source>
        <translation>打开此行的记忆页面（Enter）</translation>
    </message>
    <message>
        <source>No project has memories yet. When an agent remembers something about a folder it works in, that project is listed here.</source>
        <translation>还没有项目有记忆。当智能体记住了它所工作的某个文件夹的信息，该项目就会列在这里。</translation>
    </message>
    <message>
        <source>Other memory stores</source>
        <translation>其他记忆库</translation>
    </message>
    <message numerus="yes">
        <source>LiveAgent and Loki Mode memory stores in these folders and their subfolders (up to %n levels deep), only read, never changed.</source>
        <translation>
            <numerusform>在这些文件夹及其子文件夹（最多 %n 层深）中查找 LiveAgent 和 Loki Mode 记忆库，只读取，从不修改。</numerusform>
        </translation>
    </message>
    <message>
        <source>Add a folder to search</source>
        <translation>添加要搜索的文件夹</translation>
    </message>
    <message>
        <source>Look for memory stores in these folders</source>
        <translation>在这些文件夹中查找记忆库</translation>
    </message>
    <message>
        <source>Stop searching the chosen folder</source>
        <translation>不再搜索所选文件夹</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Add a folder to search (%1)</source>
        <translation>添加要搜索的文件夹（%1）</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Stop searching the chosen folder (%1)</source>
        <translation>不再搜索所选文件夹（%1）</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Look for memory stores in these folders (%1)</source>
        <translation>在这些文件夹中查找记忆库（%1）</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Projects /
namespaces</source>
        <translation>项目 /
命名空间</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>总数</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Room left</source>
        <translation>剩余空间</translation>
    </message>
    <message>
        <source>Memory space</source>
        <translation>记忆空间</translation>
    </message>
    <message numerus="yes">
        <source>%n projects</source>
        <translation>
            <numerusform>%n 个项目</numerusform>
        </translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>Unknown folder (%1)</source>
        <translation>未知文件夹（%1）</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>Missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>The folder was moved or deleted; its memories remain.</source>
        <translation>该文件夹已被移动或删除；其记忆仍然保留。</translation>
    </message>
    <message>
        <source>Found on every machine by: %1</source>
        <translation>在每台机器上凭此识别：%1</translation>
    </message>
    <message>
        <source>Kept in %1 folders; searches read the first: %2</source>
        <translation>存放在 %1 个文件夹中；搜索读取第一个：%2</translation>
    </message>
    <message>
        <source>Its .workdir.json cannot be read: the folder it names is unknown.</source>
        <translation>无法读取它的项目标记文件，不知道它指向哪个文件夹。</translation>
    </message>
    <message>
        <source>%1 (on %2)</source>
        <translation>%1（在 %2 上）</translation>
    </message>
    <message>
        <source>Project key: %1</source>
        <translation>项目键：%1</translation>
    </message>
    <message>
        <source>Memories shared by every project</source>
        <translation>所有项目共享的记忆</translation>
    </message>
    <message>
        <source>%1
Not found in the last search: moved or deleted?</source>
        <translation>%1
上次搜索时未找到：已被移动或删除？</translation>
    </message>
    <message>
        <source>Choose a folder to search</source>
        <translation>选择要搜索的文件夹</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>Add a folder to search, for example the one that holds your code projects.</source>
        <translation>添加要搜索的文件夹，例如存放你的代码项目的文件夹。</translation>
    </message>
    <message>
        <source>Press Search to look for memory stores in these folders.</source>
        <translation>点击“搜索”在这些文件夹中查找记忆库。</translation>
    </message>
    <message>
        <source>None of these folders could be searched: see the problems below.</source>
        <translation>这些文件夹都无法搜索：请查看下方的问题。</translation>
    </message>
    <message>
        <source>No other memory stores were found in these folders.</source>
        <translation>在这些文件夹中没有找到其他记忆库。</translation>
    </message>
    <message numerus="yes">
        <source>Searching %n folders…</source>
        <translation>
            <numerusform>正在搜索 %n 个文件夹…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n stores found</source>
        <translation>
            <numerusform>找到 %n 个记忆库</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n LiveAgent memories</source>
        <translation>
            <numerusform>%n 条 LiveAgent 记忆</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n episodes</source>
        <translation>
            <numerusform>%n 条任务记录</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n patterns</source>
        <translation>
            <numerusform>%n 个模式</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n skills</source>
        <translation>
            <numerusform>%n 个技能</numerusform>
        </translation>
    </message>
    <message>
        <source>This store is listed but not counted in the totals.</source>
        <translation>本记忆库会列出，但不计入总数。</translation>
    </message>
    <message numerus="yes">
        <source>%n folders lie deeper than %1 levels and were not searched.</source>
        <translation>
            <numerusform>有 %n 个文件夹深于 %1 层，未搜索。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n folders searched in %1 ms</source>
        <translation>
            <numerusform>已搜索 %n 个文件夹，用时 %1 毫秒</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n folders searched in %1 s</source>
        <translation>
            <numerusform>已搜索 %n 个文件夹，用时 %1 秒</numerusform>
        </translation>
    </message>
    <message>
        <source>LiveAgent</source>
        <translation>LiveAgent</translation>
    </message>
    <message>
        <source>Loki Mode</source>
        <translation>Loki Mode</translation>
    </message>
    <message>
        <source>episodes</source>
        <translation>任务记录</translation>
    </message>
    <message>
        <source>patterns</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>%1 (this store)</source>
        <translation>%1（本记忆库）</translation>
    </message>
    <message>
        <source>Loki Mode namespace</source>
        <translation>Loki Mode 命名空间</translation>
    </message>
    <message>
        <source>Folder not found: %1</source>
        <translation>找不到文件夹：%1</translation>
    </message>
    <message>
        <source>Permission denied: %1</source>
        <translation>没有权限：%1</translation>
    </message>
    <message>
        <source>Could not be read: %1</source>
        <translation>无法读取：%1</translation>
    </message>
    <message>
        <source>Removed during the search: %1</source>
        <translation>搜索期间被删除：%1</translation>
    </message>
    <message>
        <source>A link to a folder already searched: %1</source>
        <translation>指向已搜索文件夹的链接：%1</translation>
    </message>
    <message>
        <source>Not valid JSON: %1</source>
        <translation>不是有效的 JSON：%1</translation>
    </message>
    <message>
        <source>Too large to read: %1</source>
        <translation>文件太大，未读取：%1</translation>
    </message>
    <message>
        <source>Not in the expected format: %1</source>
        <translation>格式不符合预期：%1</translation>
    </message>
    <message>
        <source>Not a project folder (wrong name): %1</source>
        <translation>不是项目文件夹（名称不对）：%1</translation>
    </message>
    <message numerus="yes">
        <source>…and %n more folders that could not be searched</source>
        <translation>
            <numerusform>…另有 %n 个文件夹无法搜索</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QuotaBanner</name>
    <message>
        <source>Memory space: %1.</source>
        <translation>记忆空间：%1。</translation>
    </message>
    <message>
        <source>New memories will be refused.</source>
        <translation>新的记忆将被拒绝。</translation>
    </message>
    <message>
        <source>Open organizer</source>
        <translation>打开整理器</translation>
    </message>
    <message>
        <source>Merge and prune memories to make room</source>
        <translation>合并和精简记忆以腾出空间</translation>
    </message>
    <message>
        <source>Global memories</source>
        <translation>全局记忆</translation>
    </message>
    <message>
        <source>Project %1</source>
        <translation>项目 %1</translation>
    </message>
    <message>
        <source>%1: %2 of %3 used, %4 left, %5 unreviewed.</source>
        <translation>%1：已用 %2/%3，剩余 %4，未审阅 %5。</translation>
    </message>
</context>
<context>
    <name>ReviewMode</name>
    <message>
        <source>Review unreviewed memories</source>
        <translation>审阅未审阅的记忆</translation>
    </message>
    <message>
        <source>Accept</source>
        <translation>接受</translation>
    </message>
    <message>
        <source>Mark this memory reviewed; then the next</source>
        <translation>将这条记忆标记为已审阅，然后显示下一条</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Change its text; saving marks it reviewed</source>
        <translation>修改其文本；保存后即标记为已审阅</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Move it to the trash, with a reason</source>
        <translation>移到回收站，并写明原因</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Take back the last accept, edit or delete</source>
        <translation>撤回上一次接受、编辑或删除</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>上一条</translation>
    </message>
    <message>
        <source>The memory before this one</source>
        <translation>前一条记忆</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一条</translation>
    </message>
    <message>
        <source>The memory after this one</source>
        <translation>后一条记忆</translation>
    </message>
    <message>
        <source>Skip</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source>Leave it for later: it moves to the end</source>
        <translation>稍后再看：它会移到队列末尾</translation>
    </message>
    <message>
        <source>Back to the list</source>
        <translation>返回列表</translation>
    </message>
    <message>
        <source>Leave the review mode</source>
        <translation>退出审阅模式</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Why delete it?</source>
        <translation>删除原因：</translation>
    </message>
    <message>
        <source>A reason, kept in its history (optional)</source>
        <translation>原因会保存在历史中（可选）</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>No memory waits for review.</source>
        <translation>没有等待审阅的记忆。</translation>
    </message>
    <message>
        <source>Loading the unreviewed memories…</source>
        <translation>正在加载未审阅的记忆…</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 条，共 %2 条</translation>
    </message>
    <message>
        <source>It reads like an instruction to the agent.</source>
        <translation>它读起来像是给智能体的指令。</translation>
    </message>
    <message>
        <source>Written by %1.</source>
        <translation>由%1写入。</translation>
    </message>
    <message>
        <source>Written by %1: what a model writes waits for a person.</source>
        <translation>由%1写入：模型写下的内容要等人来审阅。</translation>
    </message>
    <message>
        <source>Its confidence was lowered: the quote is too short.</source>
        <translation>其可信度已被降低：引用太短。</translation>
    </message>
    <message>
        <source>Waiting for review: %1</source>
        <translation>等待审阅：%1</translation>
    </message>
    <message>
        <source>Skipped: it comes again at the end.</source>
        <translation>已跳过：它会在队列末尾再次出现。</translation>
    </message>
    <message>
        <source>Accepted “%1”.</source>
        <translation>已接受“%1”。</translation>
    </message>
    <message>
        <source>Saved; it still needs review (it reads risky).</source>
        <translation>已保存；它仍需审阅（内容有风险）。</translation>
    </message>
    <message>
        <source>Saved “%1”.</source>
        <translation>已保存“%1”。</translation>
    </message>
    <message>
        <source>Deleted “%1”.</source>
        <translation>已删除“%1”。</translation>
    </message>
    <message>
        <source>%1 Undo (%2) takes it back.</source>
        <translation>%1撤销（%2）可撤回。</translation>
    </message>
    <message>
        <source>Undone.</source>
        <translation>已撤销。</translation>
    </message>
</context>
<context>
    <name>ReviewQueue</name>
    <message>
        <source>Review queue</source>
        <translation>待审队列</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决策</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Risk</source>
        <translation>风险</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Apply selected</source>
        <translation>应用所选</translation>
    </message>
    <message>
        <source>Apply the checked decisions (Ctrl+Enter)</source>
        <translation>应用已勾选的决策（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>Apply all safe</source>
        <translation>应用全部安全项</translation>
    </message>
    <message>
        <source>Reject the current decision (Delete)</source>
        <translation>拒绝当前决策（Delete）</translation>
    </message>
    <message>
        <source>Reject the rest</source>
        <translation>拒绝其余</translation>
    </message>
    <message>
        <source>Reject every decision not applied yet; the queue closes</source>
        <translation>拒绝所有尚未应用的决策；队列随之关闭</translation>
    </message>
    <message numerus="yes">
        <source>Merge %n memories</source>
        <translation>
            <numerusform>合并 %n 条记忆</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (edited)</source>
        <translation>%1（已编辑）</translation>
    </message>
    <message>
        <source>Apply every low-risk decision that needs no acknowledgement</source>
        <translation>应用所有无需确认的低风险决策</translation>
    </message>
    <message>
        <source>This run&apos;s review is finished.</source>
        <translation>这次运行的审阅已结束。</translation>
    </message>
    <message>
        <source>Every decision was handled.</source>
        <translation>每项决策都已处理。</translation>
    </message>
    <message>
        <source>Every remaining proposal needs your review: none is low-risk without an acknowledgement, so “Apply all safe” has nothing to apply.</source>
        <translation>剩余的每项建议都需要你审阅：没有一项是无需确认的低风险决策，所以“应用全部安全项”没有可应用的内容。</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Select a run to review its decisions.</source>
        <translation>选择一次运行以审阅其决策。</translation>
    </message>
    <message>
        <source>This run was recorded by an older version; its report is read-only.</source>
        <translation>此运行由旧版本记录，其报告为只读。</translation>
    </message>
    <message>
        <source>This run is in progress. Its decisions appear here when it finishes.</source>
        <translation>此运行正在进行。结束后其决策会显示在这里。</translation>
    </message>
    <message>
        <source>No decisions are waiting for review in this run.</source>
        <translation>此运行中没有待审阅的决策。</translation>
    </message>
</context>
<context>
    <name>RowActions</name>
    <message>
        <source>Copy slug</source>
        <translation>复制 Slug</translation>
    </message>
    <message>
        <source>Open in editor</source>
        <translation>在编辑器中打开</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <source>Copy the selected memories&apos; slugs</source>
        <translation>复制所选记忆的 Slug</translation>
    </message>
    <message>
        <source>Open the memory&apos;s file in the system&apos;s editor</source>
        <translation>用系统编辑器打开这条记忆的文件</translation>
    </message>
    <message>
        <source>Open the folder that holds the memory&apos;s file</source>
        <translation>打开存放这条记忆文件的文件夹</translation>
    </message>
    <message>
        <source>Copied %1.</source>
        <translation>已复制 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Copied %n slugs.</source>
        <translation>
            <numerusform>已复制 %n 个 Slug。</numerusform>
        </translation>
    </message>
    <message>
        <source>No program opened %1.</source>
        <translation>没有程序能打开 %1。</translation>
    </message>
</context>
<context>
    <name>RunBar</name>
    <message>
        <source>Run now</source>
        <translation>立即运行</translation>
    </message>
    <message>
        <source>Organize with the chosen scope and mode (Ctrl+R)</source>
        <translation>按所选范围和模式整理（Ctrl+R）</translation>
    </message>
    <message>
        <source>Learn from episodes</source>
        <translation>从经历中学习</translation>
    </message>
    <message>
        <source>Propose anti-patterns, skills and patterns from the agents&apos; episodes since the last time; nothing is applied until you accept it in the review queue</source>
        <translation>根据上次以来智能体的经历提出反模式、技能和模式；在审阅队列中接受之前不会应用任何内容</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the run in progress (Esc)</source>
        <translation>停止正在进行的运行（Esc）</translation>
    </message>
    <message>
        <source>The organizer is not available in this window.</source>
        <translation>此窗口中无法使用整理器。</translation>
    </message>
    <message>
        <source>No scheduled runs. Choose daily or weekly to organize automatically.</source>
        <translation>没有定时运行。选择每天或每周即可自动整理。</translation>
    </message>
    <message>
        <source>Next scheduled run: %1</source>
        <translation>下次定时运行：%1</translation>
    </message>
    <message>
        <source>Last run: %1</source>
        <translation>上次运行：%1</translation>
    </message>
    <message>
        <source>Another organizer run is active; this one was recorded as skipped.</source>
        <translation>另一次整理运行正在进行；本次已记为跳过。</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Phase %1 of %2: %3</source>
        <translation>阶段 %1/%2：%3</translation>
    </message>
</context>
<context>
    <name>RunHistoryModel</name>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation>触发方式</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Applied</source>
        <translation>已应用</translation>
    </message>
    <message>
        <source>Ratio</source>
        <translation>压缩比</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>令牌数</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
</context>
<context>
    <name>RunHistoryPanel</name>
    <message>
        <source>Run history</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Clear history</source>
        <translation>清除运行记录</translation>
    </message>
    <message>
        <source>Delete the records of finished runs</source>
        <translation>删除已结束运行的记录</translation>
    </message>
    <message>
        <source>No organizer runs yet. Press “Run now” to look for duplicates and memories to tidy up; nothing changes until you review it.</source>
        <translation>整理器还没有运行过。点“立即运行”查找重复和需要整理的记忆；在你审阅之前不会做任何改动。</translation>
    </message>
</context>
<context>
    <name>RunWords</name>
    <message>
        <source>, </source>
        <comment>between the items of a list</comment>
        <translation>、</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>two sentences one after the other</comment>
        <translation>%1%2</translation>
    </message>
    <message>
        <source>Memories: %1, clusters: %2.</source>
        <translation>记忆 %1 条，聚类 %2 个。</translation>
    </message>
    <message>
        <source>Nothing to organize.</source>
        <translation>没有需要整理的记忆。</translation>
    </message>
    <message>
        <source>No new episodes since the last consolidation: nothing to learn.</source>
        <translation>上次整合以来没有新的经历：没有可学习的内容。</translation>
    </message>
    <message>
        <source>%1 merges and deletions proposed for review (offline duplicate check).</source>
        <translation>提出 %1 项合并与删除，等待审阅（离线重复检查）。</translation>
    </message>
    <message>
        <source>%1 decisions passed the risk gate, %2 held back.</source>
        <translation>%1 项决定通过风险检查，%2 项被暂缓。</translation>
    </message>
    <message>
        <source>%1 new episodes; %2 lessons proposed for review.</source>
        <translation>%1 条新经历；%2 条经验待审阅。</translation>
    </message>
    <message>
        <source>Model&apos;s reason: %1</source>
        <translation>模型给出的理由：%1</translation>
    </message>
    <message>
        <source>%1 (the same text)</source>
        <translation>%1（内容相同）</translation>
    </message>
    <message>
        <source>%1 (the same meaning in another language: margin %2, cosine %3)</source>
        <translation>%1（另一种语言的同一意思：间距 %2，余弦 %3）</translation>
    </message>
    <message>
        <source>%1 (the same meaning: margin %2, cosine %3)</source>
        <translation>%1（意思相同：间距 %2，余弦 %3）</translation>
    </message>
    <message>
        <source>%1 (similarity %2: Jaccard %3, containment %4)</source>
        <translation>%1（相似度 %2：Jaccard %3，包含度 %4）</translation>
    </message>
    <message>
        <source>%1 is %2</source>
        <translation>%1 是%2</translation>
    </message>
    <message>
        <source>The types differ: %1.</source>
        <translation>类型不同：%1。</translation>
    </message>
    <message>
        <source>Exact duplicates of %1 (the same text once case, width, spaces and punctuation are set aside): %2.</source>
        <translation>与 %1 完全重复（忽略大小写、全半角、空白和标点后内容相同）：%2。</translation>
    </message>
    <message>
        <source>Near duplicates of %1 (nothing material differs): %2.</source>
        <translation>与 %1 近似重复（没有实质差异）：%2。</translation>
    </message>
    <message>
        <source>anti-pattern</source>
        <translation>反模式</translation>
    </message>
    <message>
        <source>skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>pattern</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Update %1</source>
        <comment>a learned memory&apos;s kind</comment>
        <translation>更新%1</translation>
    </message>
    <message>
        <source>New %1</source>
        <comment>a learned memory&apos;s kind</comment>
        <translation>新%1</translation>
    </message>
    <message>
        <source>The %1 already exists; %2 more episodes confirm it: %3.</source>
        <translation>该%1已存在；又有 %2 条经历印证了它：%3。</translation>
    </message>
    <message>
        <source>Learned from %2 episodes (%1): %3.</source>
        <translation>从 %2 条经历中学到的%1：%3。</translation>
    </message>
    <message>
        <source>Merged into %1.</source>
        <translation>已并入 %1。</translation>
    </message>
    <message>
        <source>Merge proposed by the organizer (no reason given).</source>
        <translation>整理器提出的合并（未给出理由）。</translation>
    </message>
    <message>
        <source>Deletion proposed by the organizer (no reason given).</source>
        <translation>整理器提出的删除（未给出理由）。</translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: deleting %3 needs your review.</source>
        <translation>%1：并入 %2 的合并被暂缓：删除 %3 需要你审阅。</translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: the merged text would be longer than %3 bytes and needs a shorter rewrite by hand.</source>
        <translation>%1：并入 %2 的合并被暂缓：合并后的文本会超过 %3 字节，需要你手动改写得更短。</translation>
    </message>
    <message>
        <source>Episode %1 could not be read and was skipped (%2).</source>
        <translation>经历 %1 无法读取，已跳过（%2）。</translation>
    </message>
    <message>
        <source>%1: what was learned would be %2 bytes, over the limit of %3; shorten the memory to let it grow.</source>
        <translation>%1：学到的内容将有 %2 字节，超过 %3 的上限；请先缩短这条记忆，它才能继续增长。</translation>
    </message>
    <message>
        <source>Only the newest %1 episodes were read.</source>
        <translation>只读取了最新的 %1 条经历。</translation>
    </message>
    <message>
        <source>(no memory named)</source>
        <translation>（未指明记忆）</translation>
    </message>
    <message>
        <source>%1: the model suggests rewriting %2.</source>
        <translation>%1：模型建议改写 %2。</translation>
    </message>
    <message>
        <source>%1: the model asks for a review of %2.</source>
        <translation>%1：模型请求审阅 %2。</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>negation</source>
        <translation>否定</translation>
    </message>
    <message>
        <source>subject</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>exception</source>
        <translation>例外</translation>
    </message>
    <message>
        <source>%1 and %2 disagree (%3); which one is current?</source>
        <translation>%1 与 %2 说法矛盾（%3），哪一条是现在的？</translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: %3 and %4 disagree (%5); which one is current?</source>
        <translation>%1：并入 %2 的合并被暂缓：%3 与 %4 说法矛盾（%5），哪一条是现在的？</translation>
    </message>
    <message>
        <source>%1: the merge into %2 is held back: %3 and %4 are different facts (%5).</source>
        <translation>%1：并入 %2 的合并被暂缓：%3 与 %4 说的是不同的事实（%5）。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Everywhere</source>
        <translation>所有页面</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
</context>
<context>
    <name>Strings</name>
    <message>
        <source>That memory no longer exists.</source>
        <translation>这条记忆已不存在。</translation>
    </message>
    <message>
        <source>Something went wrong in the memory store.</source>
        <translation>记忆库出了问题。</translation>
    </message>
    <message>
        <source>A value is missing or not valid.</source>
        <translation>有一个值缺失或无效。</translation>
    </message>
    <message>
        <source>That slug cannot be used: write lowercase words with dashes, e.g. tea-preference.</source>
        <translation>不能使用这个标识名：请用小写英文单词和连字符，例如 tea-preference。</translation>
    </message>
    <message>
        <source>A memory with this slug already exists: choose another slug.</source>
        <translation>已有使用这个标识名的记忆：请换一个标识名。</translation>
    </message>
    <message>
        <source>This slug is both a global and a project memory: say which one you mean.</source>
        <translation>这个标识名同时属于一条全局记忆和一条项目记忆：请指明是哪一条。</translation>
    </message>
    <message>
        <source>The scope must be global or project.</source>
        <translation>范围必须是全局或项目。</translation>
    </message>
    <message>
        <source>That memory type cannot be used here.</source>
        <translation>这里不能使用这种记忆类型。</translation>
    </message>
    <message>
        <source>That way of updating a memory is not known.</source>
        <translation>不支持这种更新记忆的方式。</translation>
    </message>
    <message>
        <source>A day&apos;s journal can only be added to, not replaced.</source>
        <translation>某一天的日志只能追加，不能替换。</translation>
    </message>
    <message>
        <source>A project memory needs its project folder.</source>
        <translation>项目记忆需要指定它的项目文件夹。</translation>
    </message>
    <message>
        <source>That project id is not valid.</source>
        <translation>这个项目编号无效。</translation>
    </message>
    <message>
        <source>A memory needs a one-line description.</source>
        <translation>记忆需要一行描述。</translation>
    </message>
    <message>
        <source>The text is too long for one memory.</source>
        <translation>文本太长，一条记忆放不下。</translation>
    </message>
    <message>
        <source>That day&apos;s journal is archived and can no longer be changed.</source>
        <translation>那一天的日志已归档，不能再修改。</translation>
    </message>
    <message>
        <source>This version of the program does not know that command.</source>
        <translation>当前版本的程序不认识这个命令。</translation>
    </message>
    <message>
        <source>No window can be opened here: there is no display, or system libraries are missing.</source>
        <translation>无法在这里打开窗口：没有显示器，或缺少系统库。</translation>
    </message>
    <message>
        <source>The memory folder does not exist.</source>
        <translation>记忆文件夹不存在。</translation>
    </message>
    <message>
        <source>The search index was made by a newer version of LiveAgent Memory: update the program.</source>
        <translation>搜索索引由更新版本的 LiveAgent Memory 创建：请更新程序。</translation>
    </message>
    <message>
        <source>A setting is not valid, so nothing was saved.</source>
        <translation>有一项设置无效，因此没有保存任何内容。</translation>
    </message>
    <message>
        <source>The model call failed.</source>
        <translation>模型调用失败。</translation>
    </message>
    <message>
        <source>The model answered with a tool call that is not valid JSON.</source>
        <translation>模型返回的工具调用不是有效的 JSON。</translation>
    </message>
    <message>
        <source>Embeddings could not be used; search uses keywords only.</source>
        <translation>无法使用向量嵌入；搜索只使用关键词。</translation>
    </message>
    <message>
        <source>The embedding provider failed or is not installed; search uses keywords only.</source>
        <translation>向量嵌入服务出错或未安装；搜索只使用关键词。</translation>
    </message>
    <message>
        <source>The local model&apos;s weights could not be read by the fast path; vectors are built by the slower engine.</source>
        <translation>快速路径读不了本地模型的权重文件，向量改由较慢的引擎生成。</translation>
    </message>
    <message>
        <source>The local embedding model could not be used; duplicates were looked for by their words only.</source>
        <translation>无法使用本地嵌入模型；只按字词查找了重复记忆。</translation>
    </message>
    <message>
        <source>The embedding model&apos;s vectors do not fit its index; search uses keywords only.</source>
        <translation>向量嵌入模型的向量与其索引不匹配；搜索只使用关键词。</translation>
    </message>
    <message>
        <source>That memory&apos;s file cannot be read; it was left as it is.</source>
        <translation>无法读取这条记忆的文件；文件保持原样。</translation>
    </message>
    <message>
        <source>The memory folder cannot be used.</source>
        <translation>无法使用记忆文件夹。</translation>
    </message>
    <message>
        <source>The search index is busy or damaged.</source>
        <translation>搜索索引繁忙或已损坏。</translation>
    </message>
    <message>
        <source>The text looks like it holds a secret, so it was not saved.</source>
        <translation>文本中似乎包含机密信息，因此未保存。</translation>
    </message>
    <message>
        <source>Only a person can do this: a model may not mark memories reviewed.</source>
        <translation>只有人才能这样做：模型不能把记忆标记为已审阅。</translation>
    </message>
    <message>
        <source>Settings never hold API keys or passwords. Store the key in the system keyring with the key field, and give the base URL without user:password@ or a key in it.</source>
        <translation>设置中绝不保存 API 密钥或密码。请用密钥输入框把密钥存入系统钥匙串，并填写不含 user:password@ 或密钥参数的基础 URL。</translation>
    </message>
    <message>
        <source>This scope is full. Run the organizer or delete memories first.</source>
        <translation>此范围已满。请先运行整理器或删除一些记忆。</translation>
    </message>
    <message>
        <source>That version is no longer available.</source>
        <translation>该版本已不可用。</translation>
    </message>
    <message>
        <source>That sync conflict is no longer there: it was resolved already.</source>
        <translation>这个同步冲突已经不在了：它已被解决。</translation>
    </message>
    <message>
        <source>This memory changed since, so undo would overwrite that; nothing was changed.</source>
        <translation>这条记忆之后又被修改过，撤销会覆盖那些修改；因此未做任何更改。</translation>
    </message>
    <message>
        <source>No secure keyring is available on this system, so API keys cannot be stored or read here (they are never written to a file). Start a Secret Service (e.g. gnome-keyring or KWallet) and unlock it, or put the key in the provider&apos;s environment variable instead (for example OPENAI_API_KEY).</source>
        <translation>此系统没有可用的安全密钥环，因此无法在这里存储或读取 API 密钥（密钥从不写入文件）。请启动并解锁一个 Secret Service（例如 gnome-keyring 或 KWallet），或改为把密钥放进服务商的环境变量（例如 OPENAI_API_KEY）。</translation>
    </message>
    <message>
        <source>The web bridge cannot listen on that port: another program (or another bridge) uses it. Choose another port.</source>
        <translation>网页桥接无法监听该端口：另一个程序（或另一个桥接）正在使用它。请换一个端口。</translation>
    </message>
    <message>
        <source>An episode with this id is already recorded.</source>
        <translation>已记录过这个 id 的任务记录。</translation>
    </message>
    <message>
        <source>That episode no longer exists.</source>
        <translation>这条任务记录已不存在。</translation>
    </message>
    <message>
        <source>A skill needs at least one step in its Steps section, and a When to use section or a description that says when to use it.</source>
        <translation>技能至少需要在“步骤”部分写一个步骤，并需要“适用场景”部分，或用描述说明何时使用。</translation>
    </message>
    <message>
        <source>That episode&apos;s file cannot be read; it was left as it is.</source>
        <translation>无法读取这条任务记录的文件；文件保持原样。</translation>
    </message>
    <message>
        <source>That folder does not exist.</source>
        <translation>该文件夹不存在。</translation>
    </message>
    <message>
        <source>That folder holds no Loki Mode memory.</source>
        <translation>该文件夹里没有 Loki Mode 的记忆。</translation>
    </message>
    <message>
        <source>The project&apos;s id file (.liveagent/project-id) holds no usable id: fix or delete it.</source>
        <translation>项目的标识文件 project-id 中没有可用的标识：请修正或删除它。</translation>
    </message>
    <message>
        <source>A project folder&apos;s .workdir.json cannot be read.</source>
        <translation>无法读取项目文件夹的标记文件。</translation>
    </message>
    <message>
        <source>This project has no git remote and no id file, so no other folder can be known to hold it: run liveagent-memory projects pin first.</source>
        <translation>此项目没有 git 远程仓库，也没有 id 文件，无法确定其他文件夹是否属于它：请先运行 liveagent-memory projects pin。</translation>
    </message>
    <message>
        <source>This project is kept in one folder: there is nothing to merge.</source>
        <translation>此项目只保存在一个文件夹中：没有可合并的内容。</translation>
    </message>
    <message>
        <source>git is not installed: install git to sync the store.</source>
        <translation>未安装 git：请先安装 git 才能同步存储。</translation>
    </message>
    <message>
        <source>This store does not sync with git yet: run liveagent-memory sync init REMOTE.</source>
        <translation>此存储尚未用 git 同步：请运行 liveagent-memory sync init REMOTE。</translation>
    </message>
    <message>
        <source>This store already syncs with a git remote.</source>
        <translation>此存储已在与一个 git 远程仓库同步。</translation>
    </message>
    <message>
        <source>The git remote could not be reached; nothing was changed. Try again later.</source>
        <translation>无法连接 git 远程仓库；未做任何更改。请稍后再试。</translation>
    </message>
    <message>
        <source>The remote already holds a store: start syncing it from an empty store folder.</source>
        <translation>远程仓库中已有一个存储：请在一个空的存储文件夹中开始同步它。</translation>
    </message>
    <message>
        <source>The sync did not happen; nothing was changed.</source>
        <translation>同步未执行；未做任何更改。</translation>
    </message>
    <message>
        <source>No model is configured: choose one on the Model &amp; keys page first.</source>
        <translation>尚未配置模型：请先在“模型与密钥”页面选择一个。</translation>
    </message>
    <message>
        <source>Authentication failed: the provider refused the API key. Store a valid key or set the provider&apos;s environment variable.</source>
        <translation>认证失败：服务商拒绝了该 API 密钥。请存储有效的密钥，或设置服务商的环境变量。</translation>
    </message>
    <message>
        <source>Rate limited: the provider refuses more requests for now. Try again later.</source>
        <translation>请求受限：服务商暂时拒绝更多请求。请稍后再试。</translation>
    </message>
    <message>
        <source>Timed out: the model did not answer in time.</source>
        <translation>超时：模型未能及时作答。</translation>
    </message>
    <message>
        <source>Unavailable: the provider&apos;s server could not be reached or failed. Check the network connection and, if you gave one, the base URL.</source>
        <translation>不可用：无法连接服务商的服务器，或服务器出错。请检查网络连接，以及你填写的基础 URL（如果有）。</translation>
    </message>
    <message>
        <source>The provider refused the request: check the model name.</source>
        <translation>服务商拒绝了请求：请检查模型名称。</translation>
    </message>
    <message>
        <source>Abandoned: the program running it stopped before it finished.</source>
        <translation>已放弃：运行它的程序在完成前就停止了。</translation>
    </message>
    <message>
        <source>Never started: no desktop app picked up this queued run in time.</source>
        <translation>未开始：没有桌面应用及时接手这次排队的运行。</translation>
    </message>
    <message>
        <source>Stopped: it was still running after 6 hours.</source>
        <translation>已停止：运行超过 6 小时仍未结束。</translation>
    </message>
    <message>
        <source>Skipped: another run was active.</source>
        <translation>已跳过：另一次运行正在进行。</translation>
    </message>
    <message>
        <source>Cancelled before it finished.</source>
        <translation>未完成即被取消。</translation>
    </message>
    <message>
        <source>Failed: no cluster got a usable plan from the model.</source>
        <translation>失败：没有任何聚类从模型得到可用的方案。</translation>
    </message>
    <message>
        <source>global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>feedback</source>
        <translation>反馈</translation>
    </message>
    <message>
        <source>reference</source>
        <translation>参考</translation>
    </message>
    <message>
        <source>skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>journal</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>high</source>
        <translation>高</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>待处理</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>manual</source>
        <translation>手动</translation>
    </message>
    <message>
        <source>scheduled</source>
        <translation>定时</translation>
    </message>
    <message>
        <source>scan</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>cluster</source>
        <translation>聚类</translation>
    </message>
    <message>
        <source>plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>gate</source>
        <translation>把关</translation>
    </message>
    <message>
        <source>apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>consolidate</source>
        <translation>整合</translation>
    </message>
    <message>
        <source>all memories</source>
        <translation>全部记忆</translation>
    </message>
    <message>
        <source>all projects</source>
        <translation>全部项目</translation>
    </message>
    <message>
        <source>current project</source>
        <translation>当前项目</translation>
    </message>
    <message>
        <source>conservative</source>
        <translation>保守</translation>
    </message>
    <message>
        <source>standard</source>
        <translation>标准</translation>
    </message>
    <message>
        <source>aggressive</source>
        <translation>激进</translation>
    </message>
    <message>
        <source>exploration</source>
        <translation>探索</translation>
    </message>
    <message>
        <source>implementation</source>
        <translation>实现</translation>
    </message>
    <message>
        <source>debugging</source>
        <translation>调试</translation>
    </message>
    <message>
        <source>review</source>
        <translation>审查</translation>
    </message>
    <message>
        <source>refactoring</source>
        <translation>重构</translation>
    </message>
    <message>
        <source>end of turn</source>
        <translation>一轮对话结束</translation>
    </message>
    <message>
        <source>note</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>partly applied</source>
        <translation>部分应用</translation>
    </message>
    <message>
        <source>applied</source>
        <translation>已应用</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>reviewed memory protected</source>
        <translation>已审阅的记忆受保护</translation>
    </message>
    <message>
        <source>low confidence</source>
        <translation>置信度低</translation>
    </message>
    <message>
        <source>crosses types</source>
        <translation>跨类型</translation>
    </message>
    <message>
        <source>crosses scopes</source>
        <translation>跨范围</translation>
    </message>
    <message>
        <source>the model asked for review</source>
        <translation>模型要求审阅</translation>
    </message>
    <message>
        <source>merged text too long</source>
        <translation>合并后的文本过长</translation>
    </message>
    <message>
        <source>unsupported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <source>Something went wrong: %1</source>
        <translation>出错了：%1</translation>
    </message>
    <message>
        <source>plenty of room</source>
        <translation>空间充足</translation>
    </message>
    <message>
        <source>filling up</source>
        <translation>渐满</translation>
    </message>
    <message>
        <source>getting full</source>
        <translation>较满</translation>
    </message>
    <message>
        <source>nearly full</source>
        <translation>将满</translation>
    </message>
    <message>
        <source>full</source>
        <translation>已满</translation>
    </message>
</context>
<context>
    <name>SyncBar</name>
    <message>
        <source>Sync every</source>
        <translation>同步间隔</translation>
    </message>
    <message>
        <source>Sync with the git remote on a timer while the app runs</source>
        <translation>应用运行期间按时与 git 远程仓库同步</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
    <message>
        <source>Commit this store&apos;s changes, take the remote&apos;s and push (never forced)</source>
        <translation>提交此存储的更改，取回远程的更改并推送（从不强制推送）</translation>
    </message>
    <message>
        <source>Git sync cannot run: git is not installed.</source>
        <translation>无法进行 git 同步：未安装 git。</translation>
    </message>
    <message>
        <source>Git sync is off. To sync this store between machines, run liveagent-memory sync init REMOTE once in a terminal.</source>
        <translation>git 同步未开启。要在多台机器间同步此存储，请在终端中运行一次 liveagent-memory sync init REMOTE。</translation>
    </message>
    <message>
        <source>Syncing with %1…</source>
        <translation>正在与 %1 同步…</translation>
    </message>
    <message>
        <source>Syncs with %1</source>
        <translation>与 %1 同步</translation>
    </message>
    <message>
        <source>last sync failed: %1</source>
        <translation>上次同步失败：%1</translation>
    </message>
    <message numerus="yes">
        <source>synced: %n files pulled</source>
        <translation>
            <numerusform>已同步：拉取了 %n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>last sync %1</source>
        <translation>上次同步 %1</translation>
    </message>
    <message>
        <source>last sync %1 failed</source>
        <translation>上次同步 %1 失败</translation>
    </message>
    <message numerus="yes">
        <source>%n conflicts to resolve on the Memories page</source>
        <translation>
            <numerusform>%n 个冲突待在记忆页面解决</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SyncConflictDialog</name>
    <message>
        <source>Two versions of one memory</source>
        <translation>同一条记忆的两个版本</translation>
    </message>
    <message>
        <source>A sync tool kept two versions of %1. Keep one, or write the text that joins them; the other version stays in the memory&apos;s history.</source>
        <translation>同步工具保留了 %1 的两个版本。保留其中一个，或写出合并两者的文本；另一个版本会保存在这条记忆的历史中。</translation>
    </message>
    <message>
        <source>Its first side (ours)</source>
        <translation>第一方（我们的）</translation>
    </message>
    <message>
        <source>This version</source>
        <translation>这个版本</translation>
    </message>
    <message>
        <source>Its second side (theirs)</source>
        <translation>第二方（他们的）</translation>
    </message>
    <message>
        <source>The other version</source>
        <translation>另一个版本</translation>
    </message>
    <message>
        <source>Keep this version</source>
        <translation>保留这个版本</translation>
    </message>
    <message>
        <source>Keep the other version</source>
        <translation>保留另一个版本</translation>
    </message>
    <message>
        <source>Edit a merged text…</source>
        <translation>编辑合并后的文本…</translation>
    </message>
    <message>
        <source>Save the merged text</source>
        <translation>保存合并后的文本</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>VectorStatus</name>
    <message>
        <source>Search vectors could not be built; search uses keywords.</source>
        <translation>无法生成搜索向量；搜索只使用关键词。</translation>
    </message>
    <message>
        <source>Building search vectors: %1 of %2</source>
        <translation>正在生成搜索向量：%1 / %2</translation>
    </message>
    <message>
        <source>Memories are being embedded for search by meaning. Until they are, search uses keywords; everything else works as usual.</source>
        <translation>正在为记忆生成向量，以便按语义搜索。完成之前搜索只使用关键词；其他功能照常可用。</translation>
    </message>
</context>
<context>
    <name>WebPage</name>
    <message>
        <source>Web and agents</source>
        <translation>网页与智能体</translation>
    </message>
    <message>
        <source>Local web bridge</source>
        <translation>本地网页桥接</translation>
    </message>
    <message>
        <source>Run the web bridge</source>
        <translation>运行网页桥接</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>端口：</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>地址：</translation>
    </message>
    <message>
        <source>Token:</source>
        <translation>令牌：</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>New token</source>
        <translation>新令牌</translation>
    </message>
    <message>
        <source>Open web panel</source>
        <translation>打开网页面板</translation>
    </message>
    <message>
        <source>Review and organize your memories in the browser (this computer only).</source>
        <translation>在浏览器中审阅和整理你的记忆（仅限本机）。</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Make a new token; the old one stops working at once.</source>
        <translation>生成新令牌；旧令牌立即失效。</translation>
    </message>
    <message>
        <source>Agents and tools on this computer call the bridge over HTTP with the header Authorization: Bearer &lt;token&gt;. It listens on this computer only (127.0.0.1).</source>
        <translation>本机上的智能体和工具通过 HTTP 调用桥接，并带上请求头 Authorization: Bearer &lt;令牌&gt;。它只在本机（127.0.0.1）上监听。</translation>
    </message>
    <message>
        <source>MCP configuration</source>
        <translation>MCP 配置</translation>
    </message>
    <message>
        <source>Agents using MCP now</source>
        <translation>正在使用 MCP 的智能体</translation>
    </message>
    <message>
        <source>Client</source>
        <translation>客户端</translation>
    </message>
    <message>
        <source>How</source>
        <translation>方式</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>Last call</source>
        <translation>最近调用</translation>
    </message>
    <message>
        <source>Connected clients</source>
        <translation>已连接的客户端</translation>
    </message>
    <message>
        <source>HTTP clients do not stay connected: these are the programs the bridge answered lately, by the name they send (User-Agent).</source>
        <translation>HTTP 客户端不会保持连接：这里列出的是桥接最近应答过的程序，按它们发送的名称（User-Agent）区分。</translation>
    </message>
    <message>
        <source>Program</source>
        <translation>程序</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <source>Last request</source>
        <translation>最近请求</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>In claude_desktop_config.json (Settings → Developer → Edit Config): global memories, no project.</source>
        <translation>写入 claude_desktop_config.json（设置 → 开发者 → 编辑配置）：仅全局记忆，不含项目。</translation>
    </message>
    <message>
        <source>Run in the project&apos;s folder: its project memories too.</source>
        <translation>在项目文件夹中运行：同时包含该项目的记忆。</translation>
    </message>
    <message>
        <source>.cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project).</source>
        <translation>写入 &lt;项目&gt;/.cursor/mcp.json（对所有项目生效则写入 ~/.cursor/mcp.json）。</translation>
    </message>
    <message>
        <source>.vscode/mcp.json in the workspace.</source>
        <translation>写入 &lt;工作区&gt;/.vscode/mcp.json。</translation>
    </message>
    <message>
        <source>On at %1</source>
        <translation>已开启：%1</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>No secure keyring on this system: a token is made when the bridge starts and lasts until the app closes.</source>
        <translation>本系统没有安全的密钥环：桥接启动时会生成令牌，在应用关闭前有效。</translation>
    </message>
    <message>
        <source>No token yet: one is made, and kept in the system keyring, when the bridge first starts.</source>
        <translation>尚无令牌：桥接首次启动时会生成令牌，并保存在系统密钥环中。</translation>
    </message>
    <message>
        <source>The token is kept in the system keyring; it stays the same.</source>
        <translation>令牌保存在系统密钥环中，保持不变。</translation>
    </message>
    <message>
        <source>No secure keyring on this system: this token lasts until the app closes and is not saved anywhere.</source>
        <translation>本系统没有安全的密钥环：此令牌在应用关闭前有效，不会保存到任何地方。</translation>
    </message>
    <message>
        <source>The MCP servers running on this computer, each started by an agent with the configuration above, and the client that uses it.</source>
        <translation>本机正在运行的 MCP 服务器（每个都由智能体按上面的配置启动）及使用它的客户端。</translation>
    </message>
    <message>
        <source>No agent is using MCP now. An agent starts the server when it connects, with the configuration above.</source>
        <translation>目前没有智能体在使用 MCP。智能体连接时会按上面的配置启动服务器。</translation>
    </message>
    <message>
        <source>(not connected yet)</source>
        <translation>（尚未连接）</translation>
    </message>
    <message>
        <source>(no project: global memories)</source>
        <translation>（无项目：全局记忆）</translation>
    </message>
    <message>
        <source>(no name)</source>
        <translation>（无名称）</translation>
    </message>
</context>
</TS>
