<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About memdesk</source>
        <translation>关于 memdesk</translation>
    </message>
</context>
<context>
    <name>AgentDock</name>
    <message>
        <source>Use from other agents (&amp;MCP)…</source>
        <translation>供其他智能体使用 (&amp;MCP)…</translation>
    </message>
    <message>
        <source>Your agent</source>
        <translation>你的智能体</translation>
    </message>
    <message>
        <source>Your &amp;agent panel</source>
        <translation>你的智能体面板(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Check the agent (doctor)</source>
        <translation>检查智能体（诊断）(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Session transcripts</source>
        <translation>会话记录(&amp;S)</translation>
    </message>
    <message>
        <source>Set &amp;importance on these lines…</source>
        <translation>为这些行设置重要性(&amp;I)…</translation>
    </message>
    <message>
        <source>Apply to &amp;OpenClaw…</source>
        <translation>应用到 OpenClaw(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a note first</source>
        <translation>请先打开一条笔记</translation>
    </message>
    <message>
        <source>No entry lines selected (headings and blank lines are skipped)</source>
        <translation>没有选中条目行（标题和空行会被跳过）</translation>
    </message>
    <message>
        <source>Importance set; save the note for your agent to read it</source>
        <translation>已设置重要性；保存笔记后智能体才能读到</translation>
    </message>
    <message>
        <source>Importance 1–10 for the selected lines (0 removes it):</source>
        <translation>所选行的重要性 1–10（0 表示移除）：</translation>
    </message>
    <message>
        <source>Set importance</source>
        <translation>设置重要性</translation>
    </message>
    <message>
        <source>Wrote {path} (backup {backup})</source>
        <translation>已写入 {path}（备份 {backup}）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Wrote {path}</source>
        <translation>已写入 {path}</translation>
    </message>
    <message>
        <source>{rel} is in the agent&apos;s workspace; open it with “Open this workspace” first</source>
        <translation>{rel} 在智能体的工作区中；请先用“打开此工作区”打开它</translation>
    </message>
</context>
<context>
    <name>AgentPanel</name>
    <message>
        <source> · not indexed until “openclaw doctor --session-sqlite import”</source>
        <translation> · 运行“openclaw doctor --session-sqlite import”之前不会被索引</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Doctor</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Open this workspace</source>
        <translation>打开此工作区</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Agent:</source>
        <translation>智能体：</translation>
    </message>
    <message>
        <source>Config</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Searches</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Its index</source>
        <translation>它的索引</translation>
    </message>
    <message>
        <source>Type a query to see what the agent&apos;s own index returns.</source>
        <translation>输入查询，查看智能体自己的索引返回什么。</translation>
    </message>
    <message>
        <source>Check the agent</source>
        <translation>检查智能体</translation>
    </message>
    <message>
        <source>Finds what will go wrong in the agent&apos;s own indexing and search before it does.</source>
        <translation>在问题发生之前，找出智能体自身索引和搜索中会出错的地方。</translation>
    </message>
    <message>
        <source>Private (what the agent recalls)</source>
        <translation>私聊（智能体会回忆的内容）</translation>
    </message>
    <message>
        <source>Groups and channels</source>
        <translation>群组和频道</translation>
    </message>
    <message>
        <source>All sessions</source>
        <translation>全部会话</translation>
    </message>
    <message>
        <source>Search the transcripts…</source>
        <translation>搜索会话记录…</translation>
    </message>
    <message>
        <source>reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source> (default)</source>
        <translation>（默认）</translation>
    </message>
    <message>
        <source> (missing: OpenClaw&apos;s defaults)</source>
        <translation>（缺失：使用 OpenClaw 默认值）</translation>
    </message>
    <message>
        <source>{path}{exists} — OpenClaw {layout} layout</source>
        <translation>{path}{exists} — OpenClaw {layout} 布局</translation>
    </message>
    <message>
        <source>memory search is off for this agent</source>
        <translation>此智能体的记忆搜索已关闭</translation>
    </message>
    <message>
        <source>{n} files · sources: {sources}</source>
        <translation>{n} 个文件 · 来源：{sources}</translation>
    </message>
    <message>
        <source> · extra paths: {extra}</source>
        <translation> · 额外路径：{extra}</translation>
    </message>
    <message>
        <source> · {n} skipped (see Doctor)</source>
        <translation> · 跳过 {n} 个（见诊断）</translation>
    </message>
    <message>
        <source>no index</source>
        <translation>没有索引</translation>
    </message>
    <message>
        <source>{chunks} chunks from {files} files · model {model} ({provider}) · updated {when}</source>
        <translation>{files} 个文件中的 {chunks} 个片段 · 模型 {model}（{provider}）· 更新于 {when}</translation>
    </message>
    <message>
        <source>⚠ {message}</source>
        <translation>⚠ {message}</translation>
    </message>
    <message>
        <source>up to date with the files</source>
        <translation>与文件保持同步</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已更改</translation>
    </message>
    <message>
        <source>new</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>removed</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>The agent&apos;s own index, {mode}: {n} hits{note}</source>
        <translation>智能体自己的索引，{mode}：{n} 条结果{note}</translation>
    </message>
    <message>
        <source>importance {n}</source>
        <translation>重要性 {n}</translation>
    </message>
    <message>
        <source>project {p}</source>
        <translation>项目 {p}</translation>
    </message>
    <message>
        <source>Agent {agent} (OpenClaw {layout}), {n} files: {summary}</source>
        <translation>智能体 {agent}（OpenClaw {layout}），{n} 个文件：{summary}</translation>
    </message>
    <message>
        <source>fix: {fix}</source>
        <translation>修复：{fix}</translation>
    </message>
    <message>
        <source>{0} error</source>
        <translation>{0} 个错误</translation>
    </message>
    <message>
        <source>{0} errors</source>
        <translation>{0} 个错误</translation>
    </message>
    <message>
        <source>{0} warning</source>
        <translation>{0} 个警告</translation>
    </message>
    <message>
        <source>{0} warnings</source>
        <translation>{0} 个警告</translation>
    </message>
    <message>
        <source>{0} info</source>
        <translation>{0} 条提示</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>no problems</source>
        <translation>没有问题</translation>
    </message>
    <message>
        <source>The check failed: {error}</source>
        <translation>检查失败：{error}</translation>
    </message>
    <message>
        <source>reading the agent&apos;s index…</source>
        <translation>正在读取智能体的索引…</translation>
    </message>
    <message>
        <source>{title} · {role} · line {line}</source>
        <translation>{title} · {role} · 第 {line} 行</translation>
    </message>
    <message>
        <source>{n} messages match in {scope} sessions</source>
        <translation>{scope} 会话中有 {n} 条消息匹配</translation>
    </message>
    <message>
        <source>{date}  {title}  [{scope}] · {n} messages</source>
        <translation>{date}  {title}  [{scope}] · {n} 条消息</translation>
    </message>
    <message>
        <source>{n} transcripts: {counts}</source>
        <translation>{n} 份会话记录：{counts}</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>private</source>
        <translation>私聊</translation>
    </message>
    <message>
        <source>group</source>
        <translation>群组</translation>
    </message>
    <message>
        <source>internal</source>
        <translation>内部</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>OpenClaw was not found: memdesk looked for {config}, for the folder {state} and for an openclaw command on the PATH. Install OpenClaw, or set OPENCLAW_STATE_DIR or OPENCLAW_CONFIG_PATH to where it keeps its files, then press Reload.</source>
        <translation>未找到 OpenClaw：memdesk 查找了 {config}、文件夹 {state}，以及 PATH 中的 openclaw 命令。请安装 OpenClaw，或把 OPENCLAW_STATE_DIR 或 OPENCLAW_CONFIG_PATH 设为它存放文件的位置，然后点击“重新加载”。</translation>
    </message>
    <message>
        <source>Check the open workspace</source>
        <translation>检查当前打开的工作区</translation>
    </message>
    <message>
        <source>{path} (does not exist)</source>
        <translation>{path}（不存在）</translation>
    </message>
    <message>
        <source>The open workspace, as an OpenClaw {layout} agent would index it, {n} files: {summary}</source>
        <translation>当前打开的工作区（按 OpenClaw {layout} 智能体的方式索引），{n} 个文件：{summary}</translation>
    </message>
    <message>
        <source>No transcripts in {path}: the agent has not talked with anyone yet.</source>
        <translation>{path} 中没有会话记录：智能体还没有和任何人交谈过。</translation>
    </message>
    <message>
        <source>{n} {scope}</source>
        <translation>{scope} {n} 份</translation>
    </message>
    <message>
        <source>line {0}</source>
        <translation>第 {0} 行</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>info</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>scope: {scope} · {path}</source>
        <translation>范围：{scope} · {path}</translation>
    </message>
    <message>
        <source> Meanwhile the button above checks the open workspace as an OpenClaw agent would.</source>
        <translation>在此期间，上面的按钮会像 OpenClaw 智能体那样检查当前打开的工作区。</translation>
    </message>
    <message>
        <source>Apply the fix to OpenClaw…</source>
        <translation>把修复应用到 OpenClaw…</translation>
    </message>
</context>
<context>
    <name>ApplyToOpenClawDialog</name>
    <message>
        <source>Apply to OpenClaw</source>
        <translation>应用到 OpenClaw</translation>
    </message>
    <message>
        <source>OpenClaw {v}</source>
        <translation>OpenClaw {v}</translation>
    </message>
    <message>
        <source> (detected)</source>
        <translation>（已检测到）</translation>
    </message>
    <message>
        <source>All agents (defaults)</source>
        <translation>所有智能体（默认值）</translation>
    </message>
    <message>
        <source>Only agent {id}</source>
        <translation>仅智能体 {id}</translation>
    </message>
    <message>
        <source>Target release</source>
        <translation>目标版本</translation>
    </message>
    <message>
        <source>Write to</source>
        <translation>写入到</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Changes to the file:</source>
        <translation>对文件的修改：</translation>
    </message>
    <message>
        <source>openclaw.json already has these settings.</source>
        <translation>openclaw.json 已包含这些设置。</translation>
    </message>
    <message>
        <source>OpenClaw {v} cannot take these tuned values; they are not written:</source>
        <translation>OpenClaw {v} 不支持这些调整后的值；它们不会被写入：</translation>
    </message>
    <message>
        <source>OpenClaw {v} takes every tuned value.</source>
        <translation>OpenClaw {v} 支持全部调整后的值。</translation>
    </message>
    <message>
        <source>OpenClaw was not found: memdesk looked for {config}, for the folder {state} and for an openclaw command on the PATH, so there is no config to apply these settings to. Install OpenClaw (or set OPENCLAW_STATE_DIR or OPENCLAW_CONFIG_PATH to where it keeps its files) and try again; your settings stay in this workspace meanwhile.</source>
        <translation>未找到 OpenClaw：memdesk 查找了 {config}、文件夹 {state}，以及 PATH 中的 openclaw 命令，因此没有可以写入这些设置的配置。请安装 OpenClaw（或把 OPENCLAW_STATE_DIR 或 OPENCLAW_CONFIG_PATH 设为它存放文件的位置）后再试；在此期间你的设置保留在此工作区中。</translation>
    </message>
</context>
<context>
    <name>AsOfBanner</name>
    <message>
        <source>Memory as it was on {0} · memdesk's history of this workspace starts on {1}: it keeps no version from that day or before</source>
        <translation>{0} 当天的记忆 · memdesk 对这个工作区的历史从 {1} 开始：没有那天或更早的版本</translation>
    </message>
    <message>
        <source>Memory as it was on {0} · {1} notes differ now · {2} notes memdesk first saw on {3} are not known then</source>
        <translation>{0} 当天的记忆 · {1} 篇笔记与现在不同 · memdesk 在 {3} 才首次见到的 {2} 篇笔记当时情况未知</translation>
    </message>
    <message>
        <source>Not in the history by then (first seen later):</source>
        <translation>当时尚未进入历史（之后才首次见到）：</translation>
    </message>
    <message>
        <source>Back to now</source>
        <translation>回到现在</translation>
    </message>
    <message>
        <source>Search memory as it is now again (Esc in the query box)</source>
        <translation>重新搜索现在的记忆（在查询框中按 Esc）</translation>
    </message>
    <message>
        <source>Reading memory as it was on {0}…</source>
        <translation>正在读取 {0} 当天的记忆…</translation>
    </message>
    <message>
        <source>Reading memory as it was on {0}: embedding {1}/{2} changed chunks…</source>
        <translation>正在读取 {0} 当天的记忆：正在嵌入变化的分块 {1}/{2}…</translation>
    </message>
    <message>
        <source>Reading memory as it was on {0}: indexing {1}/{2} notes…</source>
        <translation>正在读取 {0} 当天的记忆：正在索引笔记 {1}/{2}…</translation>
    </message>
    <message>
        <source>Memory as it was on {0} · the history keeps no version from that day or before</source>
        <translation>{0} 当天的记忆 · 历史中没有那天或更早的版本</translation>
    </message>
    <message>
        <source>Memory as it was on {0} · {1} notes differ now</source>
        <translation>{0} 当天的记忆 · {1} 篇笔记与现在不同</translation>
    </message>
    <message>
        <source>keyword-only while {0} changed passages are embedded</source>
        <translation>正在嵌入 {0} 个有变化的段落，暂时仅用关键词检索</translation>
    </message>
    <message>
        <source>Changed since:</source>
        <translation>此后有改动：</translation>
    </message>
    <message>
        <source>Deleted since:</source>
        <translation>此后被删除：</translation>
    </message>
    <message>
        <source>New since:</source>
        <translation>此后新建：</translation>
    </message>
    <message>
        <source>{0} notes as they were on {1}</source>
        <translation>{1} 当天的 {0} 篇笔记</translation>
    </message>
    <message>
        <source>Could not read memory as it was on {0}: {1}</source>
        <translation>无法读取 {0} 当天的记忆：{1}</translation>
    </message>
</context>
<context>
    <name>AsOfDialog</name>
    <message>
        <source>Search as of a day</source>
        <translation>按某一天搜索</translation>
    </message>
    <message>
        <source>Search the notes as they were at the end of this day: each note&apos;s version then, from memdesk&apos;s history of the workspace (and its git commits).</source>
        <translation>搜索这一天结束时的笔记：每篇笔记当时的版本，取自 memdesk 保存的工作区历史（以及它的 git 提交）。</translation>
    </message>
</context>
<context>
    <name>AsOfView</name>
    <message>
        <source>deleted since</source>
        <translation>此后被删除</translation>
    </message>
    <message>
        <source>changed since</source>
        <translation>此后有改动</translation>
    </message>
    <message>
        <source>{0} was deleted after {1}</source>
        <translation>{0} 在 {1} 之后被删除</translation>
    </message>
    <message>
        <source>{0} differs now from its version of {1}</source>
        <translation>{0} 现在与它在 {1} 的版本不同</translation>
    </message>
    <message>
        <source>saved in memdesk</source>
        <translation>在 memdesk 中保存</translation>
    </message>
    <message>
        <source>changed on disk</source>
        <translation>在磁盘上被修改</translation>
    </message>
    <message>
        <source>written through MCP</source>
        <translation>通过 MCP 写入</translation>
    </message>
    <message>
        <source>a git commit</source>
        <translation>一次 git 提交</translation>
    </message>
    <message>
        <source>version {0} of {1}, {2} ({3})</source>
        <translation>{1} 的版本 {0}，{2}（{3}）</translation>
    </message>
    <message>
        <source>As it was on {0}: {1}</source>
        <translation>{0} 当天的内容：{1}</translation>
    </message>
    <message>
        <source>Changed since</source>
        <translation>此后有改动</translation>
    </message>
    <message>
        <source>Unchanged since: the note reads the same now.</source>
        <translation>此后未改动：这篇笔记现在的内容相同。</translation>
    </message>
    <message>
        <source>{0} is deleted now: its text as it was is in the explanation</source>
        <translation>{0} 现已被删除：它当时的内容见说明栏</translation>
    </message>
    <message>
        <source>Lines {0}–{1} as they read then:</source>
        <translation>第 {0}–{1} 行当时的内容：</translation>
    </message>
    <message>
        <source>Deleted since</source>
        <translation>此后被删除</translation>
    </message>
</context>
<context>
    <name>ConflictDialog</name>
    <message>
        <source>{0} was deleted on disk</source>
        <translation>{0} 已在磁盘上被删除</translation>
    </message>
    <message>
        <source>{0} changed on disk</source>
        <translation>{0} 在磁盘上已更改</translation>
    </message>
    <message>
        <source>{name} was deleted on disk, but you have unsaved edits.&lt;br&gt;Keep yours (saving will recreate the file) or drop them?</source>
        <translation>{name} 已在磁盘上被删除，但你有未保存的编辑。&lt;br&gt;保留你的编辑（保存时会重新创建该文件），还是丢弃它们？</translation>
    </message>
    <message>
        <source>{name} changed on disk into something the editor cannot show ({problem}).&lt;br&gt;Keep yours (saving will replace the disk version) or cancel and look at it first?</source>
        <translation>{name} 在磁盘上变成了编辑器无法显示的内容（{problem}）。&lt;br&gt;保留你的版本（保存时会替换磁盘上的版本），还是取消并先查看它？</translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>Both sides changed the same lines: {0} place will be marked for you to resolve.</source>
        <translation>双方改动了相同的行：{0} 处会被标记出来，由你来解决。</translation>
    </message>
    <message>
        <source>Both sides changed the same lines: {0} places will be marked for you to resolve.</source>
        <translation>双方改动了相同的行：{0} 处会被标记出来，由你来解决。</translation>
    </message>
    <message>
        <source>The changes do not overlap: merging keeps both.</source>
        <translation>改动没有重叠：合并会保留双方的内容。</translation>
    </message>
    <message>
        <source>{name} changed on disk, but you have unsaved edits.&lt;br&gt;Merge the disk changes into yours, reload the disk version (your edits are dropped) or keep yours (saving overwrites the disk version)?&lt;br&gt;{overlap}</source>
        <translation>{name} 在磁盘上已更改，但你有未保存的编辑。&lt;br&gt;把磁盘上的改动合并到你的版本、重新加载磁盘版本（丢弃你的编辑），还是保留你的版本（保存时覆盖磁盘版本）？&lt;br&gt;{overlap}</translation>
    </message>
    <message>
        <source>{0} (disk)</source>
        <translation>{0}（磁盘）</translation>
    </message>
    <message>
        <source>{0} (yours)</source>
        <translation>{0}（你的）</translation>
    </message>
    <message>
        <source>(no differences)</source>
        <translation>（没有差异）</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>合并</translation>
    </message>
    <message>
        <source>Drop mine</source>
        <translation>丢弃我的</translation>
    </message>
    <message>
        <source>Reload from disk</source>
        <translation>从磁盘重新加载</translation>
    </message>
    <message>
        <source>Keep mine</source>
        <translation>保留我的</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Keep typing: nothing changes until you choose (F8 goes to these buttons).</source>
        <translation>可以继续输入：在你选择之前什么都不会改变（按 F8 转到这些按钮）。</translation>
    </message>
    <message>
        <source>It changed on disk again ({0} times since this bar opened); Merge takes the newest version.</source>
        <translation>它在磁盘上又更改了（此提示出现后共 {0} 次）；合并会采用最新版本。</translation>
    </message>
    <message>
        <source>Merge waits until the conflicts already in the note are resolved (Take mine, theirs or both).</source>
        <translation>笔记中已有的冲突解决之前暂不能合并（采用我的、磁盘的或两者）。</translation>
    </message>
</context>
<context>
    <name>ConflictBar</name>
    <message>
        <source>{0} conflicts to resolve</source>
        <translation>还有 {0} 处冲突待解决</translation>
    </message>
    <message>
        <source>1 conflict to resolve</source>
        <translation>还有 1 处冲突待解决</translation>
    </message>
    <message>
        <source>Mine</source>
        <translation>我的</translation>
    </message>
    <message>
        <source>Theirs</source>
        <translation>磁盘的</translation>
    </message>
    <message>
        <source>Both</source>
        <translation>两者</translation>
    </message>
    <message>
        <source>Conflict {0} of {1}</source>
        <translation>第 {0} 处冲突，共 {1} 处</translation>
    </message>
</context>
<context>
    <name>ConflictHunks</name>
    <message>
        <source>Keep both: your lines, then the disk&apos;s (Alt+3)</source>
        <translation>两者都保留：先是你的行，再是磁盘上的（Alt+3）</translation>
    </message>
    <message>
        <source>Keep the disk&apos;s lines of this conflict, drop yours (Alt+2)</source>
        <translation>保留此冲突中磁盘上的行，丢弃你的（Alt+2）</translation>
    </message>
    <message>
        <source>Keep your lines of this conflict, drop the disk&apos;s (Alt+1)</source>
        <translation>保留此冲突中你的行，丢弃磁盘上的（Alt+1）</translation>
    </message>
    <message>
        <source>Next conflict</source>
        <translation>下一个冲突</translation>
    </message>
    <message>
        <source>Previous conflict</source>
        <translation>上一个冲突</translation>
    </message>
    <message>
        <source>Take both</source>
        <translation>两者都保留</translation>
    </message>
    <message>
        <source>Take mine</source>
        <translation>采用我的</translation>
    </message>
    <message>
        <source>Take theirs</source>
        <translation>采用磁盘的</translation>
    </message>
</context>
<context>
    <name>EmptyWorkspace</name>
    <message>
        <source>Create MEMORY.md</source>
        <translation>创建 MEMORY.md</translation>
    </message>
    <message>
        <source>The curated, long-term memory the agent reads in private chats</source>
        <translation>经过整理的长期记忆，智能体在私聊中读取</translation>
    </message>
    <message>
        <source>Create today&apos;s note</source>
        <translation>创建今天的笔记</translation>
    </message>
    <message>
        <source>memory/YYYY-MM-DD.md: the daily log</source>
        <translation>memory/YYYY-MM-DD.md：每日日志</translation>
    </message>
    <message>
        <source>Open another folder…</source>
        <translation>打开其他文件夹…</translation>
    </message>
    <message>
        <source>{0} has no memory notes yet (MEMORY.md or memory/*.md).</source>
        <translation>{0} 中还没有记忆笔记（MEMORY.md 或 memory/*.md）。</translation>
    </message>
</context>
<context>
    <name>ErrorDialog</name>
    <message>
        <source>memdesk: unexpected error</source>
        <translation>memdesk：意外错误</translation>
    </message>
    <message>
        <source>Something went wrong: {0}: {1}</source>
        <translation>出错了：{0}：{1}</translation>
    </message>
    <message>
        <source>Details were written to {0}</source>
        <translation>详细信息已写入 {0}</translation>
    </message>
</context>
<context>
    <name>Explanation</name>
    <message>
        <source>Near-tie ≈#{0}</source>
        <translation>近乎并列 ≈#{0}</translation>
    </message>
    <message>
        <source>{0} against {1} for #{2}: closer than {3}, the jitter OpenClaw shows between two runs of the same search, so the agent may put these two in either order</source>
        <translation>{0} 对 #{2} 的 {1}：相差不到 {3}，即 OpenClaw 同一搜索两次运行之间的抖动，所以智能体可能把这两条排成任一顺序</translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find in note</source>
        <translation>在笔记中查找</translation>
    </message>
    <message>
        <source>Previous match (Shift+F3)</source>
        <translation>上一个匹配（Shift+F3）</translation>
    </message>
    <message>
        <source>Next match (F3)</source>
        <translation>下一个匹配（F3）</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>关闭（Esc）</translation>
    </message>
    <message>
        <source>{0} of {1}</source>
        <translation>第 {0} 个，共 {1} 个</translation>
    </message>
    <message>
        <source>no match</source>
        <translation>无匹配</translation>
    </message>
</context>
<context>
    <name>McpConfigDialog</name>
    <message>
        <source>Claude Code: .mcp.json in the project (or run: claude mcp add-json memdesk &apos;&lt;the memdesk object&gt;&apos;)</source>
        <translation>Claude Code：项目中的 .mcp.json（或运行：claude mcp add-json memdesk &apos;&lt;memdesk 对象&gt;&apos;）</translation>
    </message>
    <message>
        <source>Codex: ~/.codex/config.toml</source>
        <translation>Codex：~/.codex/config.toml</translation>
    </message>
    <message>
        <source>Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in the project)</source>
        <translation>Cursor：~/.cursor/mcp.json（或项目中的 .cursor/mcp.json）</translation>
    </message>
    <message>
        <source>OpenClaw: openclaw.json (or run: openclaw mcp set memdesk &apos;&lt;the memdesk object&gt;&apos;)</source>
        <translation>OpenClaw：openclaw.json（或运行：openclaw mcp set memdesk &apos;&lt;memdesk 对象&gt;&apos;）</translation>
    </message>
    <message>
        <source>Use from other agents (MCP)</source>
        <translation>供其他智能体使用 (MCP)</translation>
    </message>
    <message>
        <source>Any agent that speaks MCP can search this workspace with your tuned ranking and its explanations. Add this to the agent&apos;s configuration:</source>
        <translation>任何支持 MCP 的智能体都能用你调好的排序及其解释搜索这个工作区。把下面的内容加入该智能体的配置：</translation>
    </message>
    <message>
        <source>Let agents append to notes (--allow-write)</source>
        <translation>允许智能体向笔记追加内容 (--allow-write)</translation>
    </message>
    <message>
        <source>Agent:</source>
        <translation>智能体：</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copied: paste it into the agent&apos;s configuration.</source>
        <translation>已复制：请粘贴到该智能体的配置中。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Filter notes</source>
        <translation>筛选笔记</translation>
    </message>
    <message>
        <source>Undo move to trash</source>
        <translation>撤销移到回收站</translation>
    </message>
    <message>
        <source>none (keyword search only)</source>
        <translation>无（仅关键词搜索）</translation>
    </message>
    <message>
        <source>{0} (missing)</source>
        <translation>{0}（不存在）</translation>
    </message>
    <message>
        <source>This folder does not exist (any more, or not mounted now)</source>
        <translation>此文件夹不存在（已被删除，或当前未挂载）</translation>
    </message>
    <message>
        <source>Model build failed</source>
        <translation>模型构建失败</translation>
    </message>
    <message>
        <source>Undo move to trash of {0}</source>
        <translation>撤销将 {0} 移到回收站</translation>
    </message>
    <message>
        <source>… and {0} more</source>
        <translation>……还有 {0} 个</translation>
    </message>
    <message>
        <source>Unsaved notes</source>
        <translation>未保存的笔记</translation>
    </message>
    <message>
        <source>These notes have unsaved edits:</source>
        <translation>这些笔记有未保存的修改：</translation>
    </message>
    <message>
        <source>Save all</source>
        <translation>全部保存</translation>
    </message>
    <message>
        <source>Discard changes</source>
        <translation>放弃修改</translation>
    </message>
    <message>
        <source>New topic note</source>
        <translation>新建主题笔记</translation>
    </message>
    <message>
        <source>Name of the note in {0}/:</source>
        <translation>{0}/ 中笔记的名称：</translation>
    </message>
    <message>
        <source>Applied the auto-tuned settings</source>
        <translation>已应用自动调优的设置</translation>
    </message>
    <message>
        <source>{0}: {1} overlapping change(s) marked &lt;&lt;&lt;&lt;&lt;&lt;&lt; … &gt;&gt;&gt;&gt;&gt;&gt;&gt;; resolve, then save</source>
        <translation>{0}：{1} 处重叠修改已用 &lt;&lt;&lt;&lt;&lt;&lt;&lt; … &gt;&gt;&gt;&gt;&gt;&gt;&gt; 标出；请解决后再保存</translation>
    </message>
    <message>
        <source>{0}: changes made on disk were merged with yours</source>
        <translation>{0}：磁盘上的修改已与你的修改合并</translation>
    </message>
    <message>
        <source>re-ranked in memory</source>
        <translation>已在内存中重新排序</translation>
    </message>
    <message>
        <source>{0} ms</source>
        <translation>{0} 毫秒</translation>
    </message>
    <message>
        <source>{0} hits from {1} candidates · {2} · {3} profile · {4}</source>
        <translation>{1} 个候选中命中 {0} 条 · {2} · {3} 配置 · {4}</translation>
    </message>
    <message>
        <source>keyword-only while the model loads</source>
        <translation>模型加载期间仅用关键词</translation>
    </message>
    <message>
        <source>keyword-only while notes are being embedded</source>
        <translation>笔记嵌入期间仅用关键词</translation>
    </message>
    <message>
        <source>{0} not embedded yet, scored by keywords</source>
        <translation>{0} 条尚未嵌入，按关键词评分</translation>
    </message>
    <message>
        <source>in MMR order (diversity): Final need not descend</source>
        <translation>按多样性重排（MMR）顺序：最终分数不一定递减</translation>
    </message>
    <message>
        <source>Search failed: {0}</source>
        <translation>搜索失败：{0}</translation>
    </message>
    <message>
        <source>Indexing failed</source>
        <translation>索引失败</translation>
    </message>
    <message>
        <source>Cannot save this workspace&apos;s search settings: {0}</source>
        <translation>无法保存此工作区的搜索设置：{0}</translation>
    </message>
    <message>
        <source>Open memory workspace</source>
        <translation>打开记忆工作区</translation>
    </message>
    <message>
        <source>Search settings now belong to each workspace: the ones memdesk kept for all workspaces are not applied here</source>
        <translation>搜索设置现在属于各个工作区：memdesk 以前为所有工作区共用的设置不会应用到这里</translation>
    </message>
    <message>
        <source>Waiting for the notes being written…</source>
        <translation>正在等待笔记写入完成…</translation>
    </message>
    <message>
        <source>Your agent&apos;s {0}-day decay and minimum score {1} hide 1 older note that memdesk finds for this question: {2}</source>
        <translation>你的智能体的 {0} 天衰减和最低分 {1} 隐藏了 1 篇较早的笔记，而 memdesk 为这个问题找到了它：{2}</translation>
    </message>
    <message>
        <source>Your agent&apos;s {0}-day decay and minimum score {1} hide {2} older notes that memdesk finds for this question: {3}</source>
        <translation>你的智能体的 {0} 天衰减和最低分 {1} 隐藏了 {2} 篇较早的笔记，而 memdesk 为这个问题找到了它们：{3}</translation>
    </message>
    <message>
        <source>Choose a GGUF embedding model</source>
        <translation>选择 GGUF 嵌入模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>ModelBanner</name>
    <message>
        <source>Build default model</source>
        <translation>构建默认模型</translation>
    </message>
    <message>
        <source>Building the default embedding model in the background…</source>
        <translation>正在后台构建默认嵌入模型…</translation>
    </message>
    <message>
        <source>Building the default embedding model: {0}</source>
        <translation>正在构建默认嵌入模型：{0}</translation>
    </message>
    <message>
        <source>Model ready ({0}); embedding the notes…</source>
        <translation>模型已就绪（{0}），正在嵌入笔记…</translation>
    </message>
    <message>
        <source>No embedding model yet: searching by keywords only (FTS). Build the default model (runs offline in the background) to switch to hybrid search.</source>
        <translation>还没有嵌入模型：目前仅按关键词（全文检索）搜索。构建默认模型（在后台离线运行）即可切换到混合检索。</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <source>The model could not be built; still searching by keywords.</source>
        <translation>无法构建模型；仍按关键词搜索。</translation>
    </message>
</context>
<context>
    <name>NoteActions</name>
    <message>
        <source>Cannot restore {0}: {1}</source>
        <translation>无法恢复 {0}：{1}</translation>
    </message>
    <message>
        <source>Creating a note in {0}/…</source>
        <translation>正在 {0}/ 中创建笔记…</translation>
    </message>
    <message>
        <source>Named the file {0}: note file names do not use {1}</source>
        <translation>文件名为 {0}：笔记文件名不使用 {1}</translation>
    </message>
    <message>
        <source>Creating {0}…</source>
        <translation>正在创建 {0}…</translation>
    </message>
    <message>
        <source>Move to trash</source>
        <translation>移到回收站</translation>
    </message>
    <message>
        <source>Moved {0} to the trash</source>
        <translation>已将 {0} 移到回收站</translation>
    </message>
    <message>
        <source>Moving {0} to the trash…</source>
        <translation>正在将 {0} 移到回收站…</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <source>Opening today&apos;s note…</source>
        <translation>正在打开今天的笔记…</translation>
    </message>
    <message>
        <source>Rename note</source>
        <translation>重命名笔记</translation>
    </message>
    <message>
        <source>Renaming {0}…</source>
        <translation>正在重命名 {0}…</translation>
    </message>
    <message>
        <source>Restored {0}</source>
        <translation>已恢复 {0}</translation>
    </message>
    <message>
        <source>Restoring {0}…</source>
        <translation>正在恢复 {0}…</translation>
    </message>
    <message>
        <source>{0} exists again; the trashed copy stays in the trash</source>
        <translation>{0} 已重新存在；回收站中的副本保留在回收站</translation>
    </message>
    <message>
        <source>{0} has unsaved edits. Move it to the trash and drop them?</source>
        <translation>{0} 有未保存的修改。要将它移到回收站并放弃这些修改吗？</translation>
    </message>
</context>
<context>
    <name>NoteEditor</name>
    <message>
        <source>No note open</source>
        <translation>没有打开的笔记</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save atomically (Ctrl+S)</source>
        <translation>原子保存（Ctrl+S）</translation>
    </message>
    <message>
        <source>Open a note from the tree or a search hit.</source>
        <translation>从左侧目录或搜索结果中打开一条笔记。</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Read-only note</source>
        <translation>只读笔记</translation>
    </message>
    <message>
        <source>{0}.
Save over it anyway? It stays read-only afterwards.</source>
        <translation>{0}。
仍要覆盖保存吗？保存后它仍为只读。</translation>
    </message>
    <message>
        <source>Save anyway</source>
        <translation>仍然保存</translation>
    </message>
    <message>
        <source>({0} other unsaved)</source>
        <translation>（另有 {0} 个未保存）</translation>
    </message>
    <message>
        <source>Saving {0}…</source>
        <translation>正在保存 {0}…</translation>
    </message>
    <message>
        <source>Go to the changed-on-disk bar</source>
        <translation>转到“磁盘上已更改”提示栏</translation>
    </message>
    <message>
        <source>{0} not saved: line {1} still holds the merge&apos;s conflict marker {2}; resolve it (Take mine, theirs or both, or delete the marker lines) and save again.</source>
        <translation>{0} 未保存：第 {1} 行仍有合并留下的冲突标记 {2}；请先解决（采用我的、磁盘的或两者，或删除标记行）再保存。</translation>
    </message>
    <message>
        <source>{0} not saved: line {1} still holds the merge&apos;s conflict marker {2}, and the rest of its conflict&apos;s markers were edited away; delete that marker line (or undo) and save again.</source>
        <translation>{0} 未保存：第 {1} 行仍有合并留下的冲突标记 {2}，而该冲突的其他标记已被改掉；请删除这一标记行（或撤销）再保存。</translation>
    </message>
    <message>
        <source>{0} not saved: it changed on disk; choose on the bar above the editor first.</source>
        <translation>{0} 未保存：它在磁盘上已更改；请先在编辑器上方的提示栏中选择。</translation>
    </message>
</context>
<context>
    <name>QualityPanel</name>
    <message>
        <source>Normalised discounted cumulative gain of the top 10, averaged over the labelled queries (1 = every relevant hit on top)</source>
        <translation>前 10 条结果的归一化折损累计增益，按已标注查询取平均（1 = 所有相关结果都排在最前）</translation>
    </message>
    <message>
        <source>Share of each query&apos;s labelled items found in its top 10</source>
        <translation>每个查询的已标注条目出现在前 10 条中的比例</translation>
    </message>
    <message>
        <source>Auto-tune</source>
        <translation>自动调参</translation>
    </message>
    <message>
        <source>Search vector weight, MMR λ and half-life for the best mean nDCG@10 on the labelled queries (runs in the background; nothing changes until you apply it)</source>
        <translation>搜索向量权重、MMR λ 和半衰期，使已标注查询的平均 nDCG@10 最高（在后台运行；应用之前不会改变任何设置）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>调整前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>调整后</translation>
    </message>
    <message>
        <source>nDCG@10 of each labelled query before and after the proposed settings</source>
        <translation>每个已标注查询在建议设置前后的 nDCG@10</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Move the sliders to the proposed settings</source>
        <translation>把滑块移到建议的设置</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>放弃</translation>
    </message>
    <message>
        <source>Retrieval quality</source>
        <translation>检索质量</translation>
    </message>
    <message>
        <source>Your settings measured on the queries you labelled</source>
        <translation>用你标注的查询衡量当前设置</translation>
    </message>
    <message>
        <source>No labelled queries yet. Tick ✓ beside the hits that answer a query to build a golden set.</source>
        <translation>还没有已标注的查询。勾选 ✓ 能回答查询的结果，即可建立标准答案集。</translation>
    </message>
    <message>
        <source>{0} labelled query · {1} relevant items</source>
        <translation>{0} 个已标注查询 · {1} 个相关条目</translation>
    </message>
    <message>
        <source>{0} labelled queries · {1} relevant items</source>
        <translation>{0} 个已标注查询 · {1} 个相关条目</translation>
    </message>
    <message>
        <source>Saved in the workspace as {0}</source>
        <translation>保存在工作区的 {0}</translation>
    </message>
    <message>
        <source>⚠ {0} label(s) lost their text (edited away): {1}; tick the hits again or untick them</source>
        <translation>⚠ {0} 个标注的文本已不存在（被编辑掉）：{1}；请重新勾选结果或取消勾选</translation>
    </message>
    <message>
        <source>fetching candidates for {0} query…</source>
        <translation>正在为 {0} 个查询获取候选…</translation>
    </message>
    <message>
        <source>fetching candidates for {0} queries…</source>
        <translation>正在为 {0} 个查询获取候选…</translation>
    </message>
    <message>
        <source>scored on {0} of {1} queries</source>
        <translation>已对 {1} 个查询中的 {0} 个评分</translation>
    </message>
    <message>
        <source>live: re-ranked from cached candidates as you tune</source>
        <translation>实时：调节时用缓存的候选重新排序</translation>
    </message>
    <message>
        <source>as the agent sees it: at most {0} results, min score {1}</source>
        <translation>按智能体看到的结果：最多 {0} 条，最低分数 {1}</translation>
    </message>
    <message>
        <source>Change from the previous setting</source>
        <translation>与上一个设置相比的变化</translation>
    </message>
    <message>
        <source>⚠ Only {0} labelled queries back this result: settings tuned on so few often do worse on other questions. Label at least {1}.</source>
        <translation>⚠ 这个结果只基于 {0} 个已标注查询：用这么少的查询调出的设置，在其他问题上往往更差。请至少标注 {1} 个。</translation>
    </message>
    <message>
        <source>Proposed</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>No setting scores higher: keep yours.</source>
        <translation>没有得分更高的设置：保留你的设置。</translation>
    </message>
    <message>
        <source>Auto-tune cancelled</source>
        <translation>自动调参已取消</translation>
    </message>
    <message>
        <source>Auto-tune failed: {0}</source>
        <translation>自动调优失败：{0}</translation>
    </message>
    <message>
        <source>{0} of {1} settings tried</source>
        <translation>已尝试 {0}/{1} 种设置</translation>
    </message>
    <message>
        <source>{0} settings tried</source>
        <translation>已尝试 {0} 种设置</translation>
    </message>
</context>
<context>
    <name>Panes</name>
    <message>
        <source>Ranking ◂</source>
        <translation>排序 ◂</translation>
    </message>
    <message>
        <source>Show the Ranking panel (sliders and retrieval quality)</source>
        <translation>显示排序面板（滑块和检索质量）</translation>
    </message>
</context>
<context>
    <name>QuickOpen</name>
    <message>
        <source>Open note</source>
        <translation>打开笔记</translation>
    </message>
    <message>
        <source>Type part of a file name…</source>
        <translation>输入文件名的一部分…</translation>
    </message>
</context>
<context>
    <name>ResultsModel</name>
    <message>
        <source>★{0} ×{1}</source>
        <translation>★{0} ×{1}</translation>
    </message>
    <message>
        <source>Importance {0}: the score is multiplied by {1} (0.75 + 0.05 × {0})</source>
        <translation>重要度 {0}：分数乘以 {1}（0.75 + 0.05 × {0}）</translation>
    </message>
    <message>
        <source>{0} ×{1}</source>
        <translation>{0} ×{1}</translation>
    </message>
    <message>
        <source>Project {0}: the score is multiplied by {1}</source>
        <translation>项目 {0}：分数乘以 {1}</translation>
    </message>
    <message>
        <source>relevant</source>
        <translation>相关</translation>
    </message>
    <message>
        <source>counts as relevant: overlaps a labelled range</source>
        <translation>计为相关：与已标注的行范围重叠</translation>
    </message>
    <message>
        <source>not labelled</source>
        <translation>未标注</translation>
    </message>
    <message>
        <source>✓</source>
        <translation>✓</translation>
    </message>
    <message>
        <source>Relevant to this query: tick to add the hit to the golden set (.memdesk/golden.jsonl). A half tick means the hit itself is not labelled but overlaps a labelled line range, so it counts as relevant</source>
        <translation>与本查询相关：勾选即把该结果加入标准答案集（.memdesk/golden.jsonl）。半勾表示该结果本身未标注，但与已标注的行范围重叠，因此计为相关</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Position in the results</source>
        <translation>在结果中的位置</translation>
    </message>
    <message>
        <source>File:lines</source>
        <translation>文件:行</translation>
    </message>
    <message>
        <source>The note and the lines of the matching chunk</source>
        <translation>匹配片段所在的笔记和行</translation>
    </message>
    <message>
        <source>Vector</source>
        <translation>向量分数</translation>
    </message>
    <message>
        <source>How close the meaning is: cosine similarity of the query&apos;s and the chunk&apos;s embeddings (1 = same meaning; — = no vector score)</source>
        <translation>语义有多接近：查询与片段嵌入向量的余弦相似度（1 = 含义相同；— = 没有向量分数）</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本分数</translation>
    </message>
    <message>
        <source>How well the words match: the keyword (BM25) score in [0, 1]; rarer words and more of them score higher (— = no keyword match)</source>
        <translation>词语匹配程度：[0, 1] 区间的关键词（BM25）分数；越罕见的词、匹配越多，分数越高（— = 没有关键词匹配）</translation>
    </message>
    <message>
        <source>Decay</source>
        <translation>时间衰减</translation>
    </message>
    <message>
        <source>Age penalty: the score is multiplied by this (1 = undated note, or decay off; 0.5 = the note is one half-life old)</source>
        <translation>时间惩罚：分数乘以这个值（1 = 无日期的笔记或衰减已关闭；0.5 = 笔记已有一个半衰期那么久）</translation>
    </message>
    <message>
        <source>Final</source>
        <translation>最终分数</translation>
    </message>
    <message>
        <source>Final score: vector and text combined with the slider weights, times decay. With MMR on, rows are in MMR order, so this column need not descend</source>
        <translation>最终分数：向量分数与文本分数按滑块权重合并，再乘以时间衰减。开启多样性重排（MMR）时，行按 MMR 顺序排列，所以这一列不一定递减</translation>
    </message>
    <message>
        <source>Pre-MMR</source>
        <translation>重排前</translation>
    </message>
    <message>
        <source>Rank by final score, before MMR re-ordered for diversity</source>
        <translation>多样性重排（MMR）之前按最终分数的排名</translation>
    </message>
    <message>
        <source>MMR</source>
        <translation>重排后</translation>
    </message>
    <message>
        <source>Rank chosen by maximal marginal relevance, which pushes near-duplicates down (— = MMR off)</source>
        <translation>由最大边际相关性（MMR）决定的排名，会把近似重复的结果往后排（— = 未开启多样性重排）</translation>
    </message>
    <message>
        <source>Snippet</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>The part of the chunk that matched, with the query&apos;s terms highlighted (the whole chunk is in the tooltip)</source>
        <translation>片段中匹配的部分，查询词已高亮（完整片段见提示）</translation>
    </message>
    <message>
        <source>counts for the label {0}</source>
        <translation>计入标注 {0}</translation>
    </message>
    <message>
        <source>lines {0}–{1}</source>
        <translation>第 {0}–{1} 行</translation>
    </message>
    <message>
        <source>Near-tie with #{0}: the scores are closer than {1}, OpenClaw&apos;s own jitter between two runs, so the agent may order these two either way</source>
        <translation>与 #{0} 近乎并列：分数相差不到 {1}，即 OpenClaw 自身两次运行之间的抖动，所以智能体可能把这两条排成任一顺序</translation>
    </message>
    <message>
        <source>≈#{0}</source>
        <translation>≈#{0}</translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>Search memory as the agent would  (Ctrl+K)</source>
        <translation>像智能体一样搜索记忆（Ctrl+K）</translation>
    </message>
    <message>
        <source>Private chat: all memory</source>
        <translation>私聊：全部记忆</translation>
    </message>
    <message>
        <source>Group chat: no MEMORY.md</source>
        <translation>群聊：不含 MEMORY.md</translation>
    </message>
    <message>
        <source>Search as the agent would in a private chat (all memory files) or a group chat (without MEMORY.md / memory.md)</source>
        <translation>按智能体在私聊（全部记忆文件）或群聊（不含 MEMORY.md / memory.md）中的方式搜索</translation>
    </message>
    <message>
        <source>Select a hit to see how its score was computed.</source>
        <translation>选中一条结果，查看它的分数是如何算出来的。</translation>
    </message>
</context>
<context>
    <name>SearchSettings</name>
    <message>
        <source>Vector weight</source>
        <translation>向量权重</translation>
    </message>
    <message>
        <source>Weight of the cosine similarity of the query and chunk embeddings.</source>
        <translation>查询与片段嵌入向量余弦相似度的权重。</translation>
    </message>
    <message>
        <source>Text weight</source>
        <translation>文本权重</translation>
    </message>
    <message>
        <source>Weight of the keyword (BM25) score.</source>
        <translation>关键词（BM25）分数的权重。</translation>
    </message>
    <message>
        <source>Min score</source>
        <translation>最低分数</translation>
    </message>
    <message>
        <source>Hits whose final score is below this are dropped.</source>
        <translation>最终分数低于此值的结果会被丢弃。</translation>
    </message>
    <message>
        <source>Max results</source>
        <translation>最多结果数</translation>
    </message>
    <message>
        <source>How many hits to return.</source>
        <translation>返回多少条结果。</translation>
    </message>
    <message>
        <source>Candidate multiplier</source>
        <translation>候选倍数</translation>
    </message>
    <message>
        <source>Each leg fetches max_results x this many candidates (at most 200).</source>
        <translation>每一路检索获取 最多结果数 × 该倍数 个候选（最多 200 个）。</translation>
    </message>
    <message>
        <source>Half-life (days)</source>
        <translation>半衰期（天）</translation>
    </message>
    <message>
        <source>Age at which a dated note&apos;s score is halved by temporal decay, and its recency bonus halved by recency.</source>
        <translation>带日期的笔记在时间衰减下分数减半、时效加分减半所需的天数。</translation>
    </message>
    <message>
        <source>Recency weight</source>
        <translation>时效权重</translation>
    </message>
    <message>
        <source>Most a note can gain for being recent when the query asks for the current state (memdesk profile; an older note that matches better by more than this keeps its place).</source>
        <translation>当查询问的是当前状态时，笔记因较新最多可获得的加分（memdesk 配置；匹配程度高出这个值以上的旧笔记保持原位）。</translation>
    </message>
    <message>
        <source>MMR lambda</source>
        <translation>MMR λ</translation>
    </message>
    <message>
        <source>1 = pure relevance, 0 = pure diversity, in maximal marginal relevance.</source>
        <translation>最大边际相关性（多样性重排）中：1 = 只看相关性，0 = 只看多样性。</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
</context>
<context>
    <name>SkippedDialog</name>
    <message>
        <source>Skipped paths</source>
        <translation>已跳过的路径</translation>
    </message>
    <message>
        <source>These paths are not in the index, so search cannot find them. Fix the reason and memdesk picks them up at the next sync.</source>
        <translation>这些路径不在索引中，搜索找不到它们。排除原因后，memdesk 会在下次同步时收录它们。</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>No search</source>
        <translation>未检索</translation>
    </message>
    <message>
        <source>OpenClaw {0} cannot index</source>
        <translation>OpenClaw {0} 无法建立索引</translation>
    </message>
    <message>
        <source>OpenClaw {0} index {1} %</source>
        <translation>OpenClaw {0} 索引 {1} %</translation>
    </message>
    <message>
        <source>Searches with the OpenClaw {0} profile are keyword-only until its own index is ready: {1} % built</source>
        <translation>使用 OpenClaw {0} 配置的搜索在其自己的索引就绪之前仅用关键词：已构建 {1} %</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Embedding {0} / {1} chunks</source>
        <translation>正在嵌入 {0} / {1} 个片段</translation>
    </message>
    <message>
        <source>Indexing for OpenClaw {0} · {1} %</source>
        <translation>正在为 OpenClaw {0} 建立索引 · {1} %</translation>
    </message>
    <message>
        <source>Refining passages · {0} %</source>
        <translation>正在细化段落 · {0} %</translation>
    </message>
    <message>
        <source>FTS-only</source>
        <translation>仅全文检索</translation>
    </message>
    <message>
        <source>Hybrid</source>
        <translation>混合检索</translation>
    </message>
    <message>
        <source>Indexing cancelled</source>
        <translation>索引已取消</translation>
    </message>
    <message>
        <source>Indexing {0} / {1} files · {2} chunks</source>
        <translation>正在索引 {0} / {1} 个文件 · {2} 个片段</translation>
    </message>
    <message>
        <source>Indexing…</source>
        <translation>正在索引…</translation>
    </message>
    <message>
        <source>Keyword search ready</source>
        <translation>关键词搜索已就绪</translation>
    </message>
    <message>
        <source>Loading the embedding model</source>
        <translation>正在加载嵌入模型</translation>
    </message>
    <message>
        <source>Paths not in the index, and why: click for the list</source>
        <translation>未编入索引的路径及原因：点击查看列表</translation>
    </message>
    <message>
        <source>The index was damaged ({0}); rebuilt it from the notes</source>
        <translation>索引已损坏（{0}）；已根据笔记重建</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Vector-only</source>
        <translation>仅向量检索</translation>
    </message>
    <message>
        <source>a few seconds left</source>
        <translation>还剩几秒</translation>
    </message>
    <message>
        <source>about {0} min left</source>
        <translation>约剩 {0} 分钟</translation>
    </message>
    <message>
        <source>about {0} s left</source>
        <translation>约剩 {0} 秒</translation>
    </message>
    <message>
        <source>embedding next</source>
        <translation>接下来进行嵌入</translation>
    </message>
    <message>
        <source>embedding notes</source>
        <translation>正在嵌入笔记</translation>
    </message>
    <message>
        <source>index up to date</source>
        <translation>索引已是最新</translation>
    </message>
    <message>
        <source>index up to date ({0})</source>
        <translation>索引已是最新（{0}）</translation>
    </message>
    <message>
        <source>keyword and vector search combined</source>
        <translation>关键词搜索与向量搜索结合</translation>
    </message>
    <message>
        <source>keyword search ready</source>
        <translation>关键词搜索已就绪</translation>
    </message>
    <message>
        <source>loading the embedding model</source>
        <translation>正在加载嵌入模型</translation>
    </message>
    <message>
        <source>model: none</source>
        <translation>模型：无</translation>
    </message>
    <message>
        <source>model: {0}</source>
        <translation>模型：{0}</translation>
    </message>
    <message>
        <source>status unavailable: {0}</source>
        <translation>状态不可用：{0}</translation>
    </message>
    <message>
        <source>{0} / {1} chunks</source>
        <translation>{0} / {1} 个片段</translation>
    </message>
    <message>
        <source>{0} / {1} files</source>
        <translation>{0} / {1} 个文件</translation>
    </message>
    <message>
        <source>{0} file(s) not indexed yet</source>
        <translation>{0} 个文件尚未编入索引</translation>
    </message>
    <message>
        <source>{0} files · {1} chunks</source>
        <translation>{0} 个文件 · {1} 个片段</translation>
    </message>
    <message>
        <source>{0} skipped</source>
        <translation>已跳过 {0} 个</translation>
    </message>
</context>
<context>
    <name>TuningPanel</name>
    <message>
        <source>OpenClaw 2026.9 always applies this; its config cannot turn it off</source>
        <translation>OpenClaw 2026.9 总是启用此项，其配置无法关闭</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 fixes this at {0}: its config has no key for it, so the openclaw-2026.9 profile cannot take another value</source>
        <translation>OpenClaw 2026.9 将此值固定为 {0}：其配置中没有对应的键，所以 openclaw-2026.9 配置档无法使用其他值</translation>
    </message>
    <message>
        <source>memdesk: our ranking · openclaw-2026.4 / openclaw-2026.9: what that OpenClaw release&apos;s memory search returns (openclaw = the newest)</source>
        <translation>memdesk：我们的排序 · openclaw-2026.4 / openclaw-2026.9：该 OpenClaw 版本的记忆搜索返回的结果（openclaw = 最新版本）</translation>
    </message>
    <message>
        <source>Temporal decay</source>
        <translation>时间衰减</translation>
    </message>
    <message>
        <source>Recency for current-state questions</source>
        <translation>当前状态问题的时效加分</translation>
    </message>
    <message>
        <source>memdesk profile: when a query asks how things are now, a recent note gains at most the recency weight, so the newer of two similar notes wins and a better old one keeps its place</source>
        <translation>memdesk 配置：当查询问的是现在的情况时，较新的笔记最多获得时效权重的加分，于是两条相似笔记中较新的胜出，而明显更匹配的旧笔记保持原位</translation>
    </message>
    <message>
        <source>MMR (diversity)</source>
        <translation>多样性重排（MMR）</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Reset this profile to its defaults</source>
        <translation>将此配置恢复为默认值</translation>
    </message>
    <message>
        <source>Apply to OpenClaw…</source>
        <translation>应用到 OpenClaw…</translation>
    </message>
    <message>
        <source>Write these settings into your agent&apos;s openclaw.json, showing the diff first</source>
        <translation>把这些设置写入智能体的 openclaw.json，先显示差异</translation>
    </message>
    <message>
        <source>Ranking</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>Defaults: {0}</source>
        <translation>使用默认值：{0}</translation>
    </message>
    <message>
        <source>Tuned on {0} queries of this workspace</source>
        <translation>基于此工作区的 {0} 个查询调优</translation>
    </message>
    <message>
        <source>Saved in this workspace&apos;s .memdesk/tuned.json</source>
        <translation>保存在此工作区的 .memdesk/tuned.json 中</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;About memdesk</source>
        <translation>关于 memdesk(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Agent</source>
        <translation>智能体(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Cancel indexing</source>
        <translation>取消索引(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Filter notes</source>
        <translation>筛选笔记(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Find in memory</source>
        <translation>在记忆中查找(&amp;F)</translation>
    </message>
    <message>
        <source>Search as of a &amp;day…</source>
        <translation>按某一天搜索(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Find in note…</source>
        <translation>在笔记中查找(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Index</source>
        <translation>索引(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言 / Language(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Open workspace…</source>
        <translation>打开工作区(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Paste</source>
        <translation>粘贴(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Preview</source>
        <translation>预览(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Ranking panel</source>
        <translation>排序面板(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Rebuild index</source>
        <translation>重建索引(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Reset zoom</source>
        <translation>重置缩放(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Sync now</source>
        <translation>立即同步(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Today&apos;s note</source>
        <translation>今天的笔记(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Build &amp;default model</source>
        <translation>构建默认模型(&amp;D)</translation>
    </message>
    <message>
        <source>Choose &amp;embedding model (GGUF)…</source>
        <translation>选择嵌入模型（GGUF）(&amp;E)…</translation>
    </message>
    <message>
        <source>Cu&amp;t</source>
        <translation>剪切(&amp;T)</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Find &amp;next</source>
        <translation>查找下一个(&amp;N)</translation>
    </message>
    <message>
        <source>Find pre&amp;vious</source>
        <translation>查找上一个(&amp;V)</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Move note to tras&amp;h</source>
        <translation>将笔记移到回收站(&amp;H)</translation>
    </message>
    <message>
        <source>New &amp;topic note…</source>
        <translation>新建主题笔记(&amp;T)…</translation>
    </message>
    <message>
        <source>Open &amp;log</source>
        <translation>打开日志(&amp;L)</translation>
    </message>
    <message>
        <source>Open &amp;note by name…</source>
        <translation>按名称打开笔记(&amp;N)…</translation>
    </message>
    <message>
        <source>Recent workspaces</source>
        <translation>最近的工作区</translation>
    </message>
    <message>
        <source>Select &amp;all</source>
        <translation>全选(&amp;A)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Undo move to trash</source>
        <translation>撤销移到回收站</translation>
    </message>
    <message>
        <source>Use &amp;no model (FTS-only)</source>
        <translation>不使用模型（仅全文检索）(&amp;N)</translation>
    </message>
    <message>
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>Note &amp;history</source>
        <translation>笔记历史(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Changes…</source>
        <translation>变更(&amp;C)…</translation>
    </message>
</context>
<context>
    <name>WorkspaceTree</name>
    <message>
        <source>New topic note…</source>
        <translation>新建主题笔记…</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Move to trash</source>
        <translation>移到回收站</translation>
    </message>
    <message>
        <source>History…</source>
        <translation>历史…</translation>
    </message>
</context>
<context>
    <name>ChangesView</name>
    <message>
        <source>Changes to memory</source>
        <translation>记忆的变更</translation>
    </message>
    <message>
        <source>&amp;Period:</source>
        <translation>时间段(&amp;P)：</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>This week</source>
        <translation>本周</translation>
    </message>
    <message>
        <source>Since a date</source>
        <translation>自某日起</translation>
    </message>
    <message>
        <source>The first day to list changes from</source>
        <translation>从哪一天开始列出变更</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>Keep this change: mark it reviewed (Alt+K)</source>
        <translation>保留这处变更：标记为已审阅 (Alt+K)</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Take this change back in the note (Alt+R); saved as a new version, nothing is lost</source>
        <translation>在笔记中撤销这处变更 (Alt+R)；保存为新版本，不会丢失任何内容</translation>
    </message>
    <message>
        <source>Open note</source>
        <translation>打开笔记</translation>
    </message>
    <message>
        <source>Open the note in the editor (Alt+O)</source>
        <translation>在编辑器中打开笔记 (Alt+O)</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Every version of the note (Alt+H)</source>
        <translation>这篇笔记的所有版本 (Alt+H)</translation>
    </message>
    <message>
        <source>Reading the changes…</source>
        <translation>正在读取变更…</translation>
    </message>
    <message>
        <source>History cannot be read: {0}</source>
        <translation>无法读取历史：{0}</translation>
    </message>
    <message>
        <source>Changes: {0} · notes: {1} · by the agent: {2} · by you: {3}</source>
        <translation>变更：{0} · 笔记：{1} · 智能体：{2} · 你：{3}</translation>
    </message>
    <message>
        <source>No changes in this period</source>
        <translation>这段时间内没有变更</translation>
    </message>
    <message>
        <source>The agent&apos;s changes</source>
        <translation>智能体的变更</translation>
    </message>
    <message>
        <source>Your changes</source>
        <translation>你的变更</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>{0} ({1}){2}</source>
        <translation>{0}（{1}）{2}</translation>
    </message>
    <message>
        <source>Choose a note or a change on the left</source>
        <translation>在左侧选择一篇笔记或一处变更</translation>
    </message>
    <message>
        <source>{0} changes, {1} → {2}</source>
        <translation>{0} 处变更，{1} → {2}</translation>
    </message>
    <message>
        <source>Dreaming output nearest before it: {0} ({1})</source>
        <translation>在它之前最近的做梦输出：{0}（{1}）</translation>
    </message>
    <message>
        <source>No diff: {0}</source>
        <translation>无法比较：{0}</translation>
    </message>
    <message>
        <source>No differences</source>
        <translation>没有差异</translation>
    </message>
    <message>
        <source>Reverting a change in {0}…</source>
        <translation>正在撤销 {0} 中的一处变更…</translation>
    </message>
</context>
<context>
    <name>History</name>
    <message>
        <source>memdesk</source>
        <translation>memdesk</translation>
    </message>
    <message>
        <source>on disk (agent)</source>
        <translation>磁盘上（智能体）</translation>
    </message>
    <message>
        <source>MCP</source>
        <translation>MCP</translation>
    </message>
    <message>
        <source>git commit</source>
        <translation>git 提交</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>first seen</source>
        <translation>首次记录</translation>
    </message>
    <message>
        <source>{0} B</source>
        <translation>{0} B</translation>
    </message>
    <message>
        <source>{0} KB</source>
        <translation>{0} KB</translation>
    </message>
    <message>
        <source>{0} MB</source>
        <translation>{0} MB</translation>
    </message>
    <message>
        <source>not kept</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>no content: {0}</source>
        <translation>无内容：{0}</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Content</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>&amp;Compare:</source>
        <translation>比较(&amp;C)：</translation>
    </message>
    <message>
        <source>with the version before it</source>
        <translation>与前一个版本</translation>
    </message>
    <message>
        <source>with the note now</source>
        <translation>与笔记的当前内容</translation>
    </message>
    <message>
        <source>Revert this change</source>
        <translation>撤销这处变更</translation>
    </message>
    <message>
        <source>Make the note&apos;s lines of this change as on the older side (Alt+R); saved as a new version</source>
        <translation>把笔记中这处变更的行恢复为较旧一侧的内容 (Alt+R)；保存为新版本</translation>
    </message>
    <message>
        <source>Restore this version</source>
        <translation>恢复这个版本</translation>
    </message>
    <message>
        <source>Make the whole note this version again (Alt+T); saved as a new version</source>
        <translation>把整篇笔记恢复为这个版本 (Alt+T)；保存为新版本</translation>
    </message>
    <message>
        <source>Choose a note to see its versions</source>
        <translation>选择一篇笔记以查看它的版本</translation>
    </message>
    <message>
        <source>History of {0}</source>
        <translation>{0} 的历史</translation>
    </message>
    <message>
        <source>History cannot be read: {0}</source>
        <translation>无法读取历史：{0}</translation>
    </message>
    <message>
        <source>No versions of {0} yet</source>
        <translation>{0} 还没有版本</translation>
    </message>
    <message>
        <source>{0} → {1}</source>
        <translation>{0} → {1}</translation>
    </message>
    <message>
        <source>{0} → the note now</source>
        <translation>{0} → 笔记的当前内容</translation>
    </message>
    <message>
        <source>The version before it → {0}</source>
        <translation>前一个版本 → {0}</translation>
    </message>
    <message>
        <source>No diff: {0}</source>
        <translation>无法比较：{0}</translation>
    </message>
    <message>
        <source>No differences</source>
        <translation>没有差异</translation>
    </message>
    <message>
        <source>Reverting a change in {0}…</source>
        <translation>正在撤销 {0} 中的一处变更…</translation>
    </message>
    <message>
        <source>This version&apos;s content is not kept</source>
        <translation>这个版本的内容没有保存</translation>
    </message>
    <message>
        <source>Restoring {0}…</source>
        <translation>正在恢复 {0}…</translation>
    </message>
</context>
<context>
    <name>Restorer</name>
    <message>
        <source>{0} has unsaved edits: the restore is in the editor, unsaved (Ctrl+Z takes it back)</source>
        <translation>{0} 有未保存的编辑：恢复的内容已放入编辑器，尚未保存（Ctrl+Z 可撤回）</translation>
    </message>
    <message>
        <source>{0} restored: saved as a new version</source>
        <translation>{0} 已恢复：保存为新版本</translation>
    </message>
</context>
<context>
    <name>WorkspaceTreeModel</name>
    <message>
        <source>Changed by the agent since you last looked</source>
        <translation>自你上次查看后被智能体修改过</translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <source>reviewed</source>
        <translation>已审阅</translation>
    </message>
    <message>
        <source>Previous change</source>
        <translation>上一处变更</translation>
    </message>
    <message>
        <source>Previous change (Alt+Up)</source>
        <translation>上一处变更 (Alt+Up)</translation>
    </message>
    <message>
        <source>Next change</source>
        <translation>下一处变更</translation>
    </message>
    <message>
        <source>Next change (Alt+Down)</source>
        <translation>下一处变更 (Alt+Down)</translation>
    </message>
</context>
<context>
    <name>core</name>
    <message>
        <source>{path} looks dated, but your agent treats it as evergreen: it never ages, so it competes with today&apos;s notes at full weight</source>
        <translation>{path} 看起来带有日期，但智能体把它当作常青笔记：它不会随时间衰减，因此会以全部权重与今天的笔记竞争</translation>
    </message>
    <message>
        <source>name it memory/YYYY-MM-DD.md</source>
        <translation>将其命名为 memory/YYYY-MM-DD.md</translation>
    </message>
    <message>
        <source>name it YYYY-MM-DD.md or YYYY-MM-DD-topic.md under memory/</source>
        <translation>在 memory/ 下将其命名为 YYYY-MM-DD.md 或 YYYY-MM-DD-主题.md</translation>
    </message>
    <message>
        <source>{path} is outside memory/, so your agent ages it by its file modification time (half-life {days} days); an old reference note sinks</source>
        <translation>{path} 不在 memory/ 下，因此智能体按文件修改时间对它做时间衰减（半衰期 {days} 天）；较旧的参考笔记排名会下沉</translation>
    </message>
    <message>
        <source>move it under memory/ to keep it evergreen</source>
        <translation>把它移到 memory/ 下，使其保持常青（不衰减）</translation>
    </message>
    <message>
        <source>no {path}; the agent runs on OpenClaw&apos;s defaults</source>
        <translation>没有 {path}；智能体使用 OpenClaw 的默认设置运行</translation>
    </message>
    <message>
        <source>memory search is disabled for agent {agent}</source>
        <translation>智能体 {agent} 的记忆搜索已关闭</translation>
    </message>
    <message>
        <source>the agent&apos;s workspace {path} does not exist</source>
        <translation>智能体的工作区 {path} 不存在</translation>
    </message>
    <message>
        <source>{path}: {reason}</source>
        <translation>{path}：{reason}</translation>
    </message>
    <message>
        <source>the agent finds no memory files in its workspace</source>
        <translation>智能体在其工作区中找不到任何记忆文件</translation>
    </message>
    <message>
        <source>{path}: cannot be read ({error})</source>
        <translation>{path}：无法读取（{error}）</translation>
    </message>
    <message>
        <source>{path} is not valid UTF-8; the agent indexes it with replacement characters</source>
        <translation>{path} 不是有效的 UTF-8；智能体会用替换字符为其建立索引</translation>
    </message>
    <message>
        <source>chunk lengths not checked: {why}</source>
        <translation>未检查片段长度：{why}</translation>
    </message>
    <message>
        <source>{path}:{start}-{end} is {tokens} tokens ({with_specials} with special tokens), over the {context}-token context of {model}</source>
        <translation>{path}:{start}-{end} 有 {tokens} 个词元（含特殊词元 {with_specials} 个），超出 {model} 的 {context} 词元上下文</translation>
    </message>
    <message>
        <source>shorten these lines or move part of the note to another file: OpenClaw cuts chunks by characters, so dense text (CJK, code, URLs) packs more tokens into one</source>
        <translation>缩短这些行，或把笔记的一部分移到另一个文件：OpenClaw 按字符数切分片段，因此密集的文本（中日韩文字、代码、网址）会在一个片段里塞进更多词元</translation>
    </message>
    <message>
        <source>OpenClaw 2026.4&apos;s local embedder (node-llama-cpp) throws &quot;Input is longer than the context size&quot; and the agent discards the whole reindex: no files, no chunks, no memory search at all</source>
        <translation>OpenClaw 2026.4 的本地嵌入器（node-llama-cpp）会抛出“Input is longer than the context size”，智能体随即放弃整次重建索引：没有文件、没有片段，记忆搜索完全不可用</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 retries the refused embedding request, then reports &quot;Memory index failed&quot; and the agent discards the whole reindex: no files, no chunks, no memory search at all</source>
        <translation>OpenClaw 2026.9 会重试被拒绝的嵌入请求，随后报告“Memory index failed”，智能体随即放弃整次重建索引：没有文件、没有片段，记忆搜索完全不可用</translation>
    </message>
    <message>
        <source>{count} chunk(s) will not fit the agent&apos;s embedding model: {consequence}</source>
        <translation>{count} 个片段超出智能体嵌入模型的容量：{consequence}</translation>
    </message>
    <message>
        <source>{path}: workspace folder does not exist</source>
        <translation>{path}：工作区文件夹不存在</translation>
    </message>
    <message>
        <source>OpenClaw {version} cannot index this workspace with this model: a chunk is {tokens} tokens, over its {context}-token context, so the agent&apos;s reindex fails and its memory search finds nothing</source>
        <translation>OpenClaw {version} 无法用此模型为该工作区建立索引：有一个片段长 {tokens} 个词元，超出模型 {context} 词元的上下文，因此智能体的重建索引会失败，记忆搜索什么也找不到</translation>
    </message>
    <message>
        <source>OpenClaw 2026.4 reads no annotations; they only count from 2026.9</source>
        <translation>OpenClaw 2026.4 不读取任何标注；标注从 2026.9 起才生效</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 reads importance and triggers only in MEMORY.md and USER.md</source>
        <translation>OpenClaw 2026.9 只在 MEMORY.md 和 USER.md 中读取重要性和触发词</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 reads them only at the very end of a line</source>
        <translation>OpenClaw 2026.9 只读取位于行尾的标注</translation>
    </message>
    <message>
        <source>{path}: {count} annotated line(s) your agent ignores: {why}</source>
        <translation>{path}：有 {count} 行标注会被智能体忽略：{why}</translation>
    </message>
    <message>
        <source>the index is in the {index_layout} layout but the config is {layout}&apos;s</source>
        <translation>索引是 {index_layout} 布局，但配置文件是 {layout} 的</translation>
    </message>
    <message>
        <source>the index has no metadata; the agent rebuilds it from scratch</source>
        <translation>索引没有元数据；智能体会从头重建它</translation>
    </message>
    <message>
        <source>the agent pauses vector search until you rebuild</source>
        <translation>在你重建索引之前，智能体会暂停向量搜索</translation>
    </message>
    <message>
        <source>the agent rebuilds the whole index on its next sync</source>
        <translation>智能体会在下次同步时重建整个索引</translation>
    </message>
    <message>
        <source>index identity mismatch: {reason}; {effect}</source>
        <translation>索引标识不一致：{reason}；{effect}</translation>
    </message>
    <message>
        <source>the agent&apos;s index is empty although {count} notes exist: its last reindex failed or never ran</source>
        <translation>虽然有 {count} 条笔记，智能体的索引却是空的：上次重建索引失败或从未运行</translation>
    </message>
    <message>
        <source>your agent&apos;s index is stale for {count} note</source>
        <translation>智能体的索引中有 {count} 条笔记已过时</translation>
    </message>
    <message>
        <source>your agent&apos;s index is stale for {count} notes</source>
        <translation>智能体的索引中有 {count} 条笔记已过时</translation>
    </message>
    <message>
        <source>{path} changed since the agent indexed it</source>
        <translation>{path} 在智能体建立索引后已被修改</translation>
    </message>
    <message>
        <source>{path} is not in the agent&apos;s index yet</source>
        <translation>{path} 还不在智能体的索引中</translation>
    </message>
    <message>
        <source>{path} is gone but still in the agent&apos;s index</source>
        <translation>{path} 已不存在，但仍在智能体的索引中</translation>
    </message>
    <message>
        <source>{path} changed on disk since it was opened; not saved</source>
        <translation>{path} 在打开后已在磁盘上被修改；未保存</translation>
    </message>
    <message>
        <source>a FIFO</source>
        <translation>命名管道（FIFO）</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>deleted in this commit</source>
        <translation>在此提交中删除</translation>
    </message>
    <message>
        <source>a socket</source>
        <translation>套接字</translation>
    </message>
    <message>
        <source>a character device</source>
        <translation>字符设备</translation>
    </message>
    <message>
        <source>a block device</source>
        <translation>块设备</translation>
    </message>
    <message>
        <source>a folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>a symlink</source>
        <translation>符号链接</translation>
    </message>
    <message>
        <source>Embedding model {path}: {reason}</source>
        <translation>嵌入模型 {path}：{reason}</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>file not found</source>
        <translation>找不到文件</translation>
    </message>
    <message>
        <source>cannot be read ({error})</source>
        <translation>无法读取（{error}）</translation>
    </message>
    <message>
        <source>not a GGUF file (bad magic)</source>
        <translation>不是 GGUF 文件（文件头标识不符）</translation>
    </message>
    <message>
        <source>corrupt or truncated GGUF ({detail})</source>
        <translation>GGUF 文件已损坏或不完整（{detail}）</translation>
    </message>
    <message>
        <source>the file holds no tensors</source>
        <translation>文件中没有任何张量</translation>
    </message>
    <message>
        <source>architecture {name} is not a supported embedding model</source>
        <translation>架构 {name} 不是受支持的嵌入模型</translation>
    </message>
    <message>
        <source>the file has no tokenizer</source>
        <translation>文件中没有分词器</translation>
    </message>
    <message>
        <source>the file lacks context_length/embedding_length</source>
        <translation>文件缺少 context_length/embedding_length</translation>
    </message>
    <message>
        <source>pooling type {name} is not supported for embeddings</source>
        <translation>池化类型 {name} 不支持用于嵌入</translation>
    </message>
    <message>
        <source>llama-cpp-python is not installed or broken: {error}</source>
        <translation>llama-cpp-python 未安装或已损坏：{error}</translation>
    </message>
    <message>
        <source>llama.cpp could not load it</source>
        <translation>llama.cpp 无法加载它</translation>
    </message>
    <message>
        <source>a symlink (symlinks are not followed)</source>
        <translation>符号链接（不跟随符号链接）</translation>
    </message>
    <message>
        <source>cannot read: {error}</source>
        <translation>无法读取：{error}</translation>
    </message>
    <message>
        <source>not a regular file ({kind})</source>
        <translation>不是普通文件（{kind}）</translation>
    </message>
    <message>
        <source>the name is not valid UTF-8; rename the file to index it</source>
        <translation>文件名不是有效的 UTF-8；重命名该文件后才能建立索引</translation>
    </message>
    <message>
        <source>cannot list the folder: {error}</source>
        <translation>无法列出文件夹内容：{error}</translation>
    </message>
    <message>
        <source>{path}: not a memory file of {root} (MEMORY.md, memory.md, memory/**/*.md or an extra path)</source>
        <translation>{path}：不是 {root} 的记忆文件（MEMORY.md、memory.md、memory/**/*.md 或额外路径）</translation>
    </message>
    <message>
        <source>{path}: not a usable path ({reason})</source>
        <translation>{path}：不可用的路径（{reason}）</translation>
    </message>
    <message>
        <source>{path}: no such memory file in {root}</source>
        <translation>{path}：{root} 中没有这个记忆文件</translation>
    </message>
    <message>
        <source>{size:,} bytes is over the {limit:,} byte limit</source>
        <translation>{size:,} 字节，超过 {limit:,} 字节的上限</translation>
    </message>
    <message>
        <source>{size:.1f} MB is over the {limit} MB limit for a note</source>
        <translation>{size:.1f} MB，超过单条笔记 {limit} MB 的上限</translation>
    </message>
    <message>
        <source>{path}: {reason}; skipped</source>
        <translation>{path}：{reason}；已跳过</translation>
    </message>
    <message>
        <source>{path}: UTF-16 text; skipped — re-save it as UTF-8</source>
        <translation>{path}：UTF-16 文本；已跳过——请另存为 UTF-8</translation>
    </message>
    <message>
        <source>{path}: looks like UTF-16 text; skipped — re-save it as UTF-8</source>
        <translation>{path}：看起来是 UTF-16 文本；已跳过——请另存为 UTF-8</translation>
    </message>
    <message>
        <source>{path}: looks binary (NUL bytes); skipped</source>
        <translation>{path}：看起来是二进制文件（含 NUL 字节）；已跳过</translation>
    </message>
    <message>
        <source>{path}: not valid UTF-8 (byte {offset}); skipped — re-save it as UTF-8</source>
        <translation>{path}：不是有效的 UTF-8（第 {offset} 字节）；已跳过——请另存为 UTF-8</translation>
    </message>
    <message>
        <source>{path}: cannot read ({error})</source>
        <translation>{path}：无法读取（{error}）</translation>
    </message>
    <message>
        <source>{name} is read-only (mode {mode:04o}); not saved</source>
        <translation>{name} 是只读文件（权限 {mode:04o}）；未保存</translation>
    </message>
    <message>
        <source>no embedding model selected (FTS-only by choice)</source>
        <translation>未选择嵌入模型（主动选择仅全文检索）</translation>
    </message>
    <message>
        <source>no embedding model built yet (run: memdesk model build)</source>
        <translation>尚未构建嵌入模型（运行：memdesk model build）</translation>
    </message>
    <message>
        <source>llama-cpp-python is not installed</source>
        <translation>llama-cpp-python 未安装</translation>
    </message>
    <message>
        <source>cannot read {path}: {error}</source>
        <translation>无法读取 {path}：{error}</translation>
    </message>
    <message>
        <source>vector weight</source>
        <translation>向量权重</translation>
    </message>
    <message>
        <source>text weight</source>
        <translation>文本权重</translation>
    </message>
    <message>
        <source>candidate multiplier</source>
        <translation>候选倍数</translation>
    </message>
    <message>
        <source>MMR</source>
        <translation>MMR</translation>
    </message>
    <message>
        <source>MMR lambda</source>
        <translation>MMR λ</translation>
    </message>
    <message>
        <source>temporal decay</source>
        <translation>时间衰减</translation>
    </message>
    <message>
        <source>decay half-life (days)</source>
        <translation>衰减半衰期（天）</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 fixes it at {value}</source>
        <translation>OpenClaw 2026.9 将其固定为 {value}</translation>
    </message>
    <message>
        <source>OpenClaw 2026.4 takes plain paths only, no glob patterns</source>
        <translation>OpenClaw 2026.4 只接受普通路径，不接受通配模式</translation>
    </message>
    <message>
        <source>openclaw.json is JSON5 (comments or unquoted keys); it is rewritten as plain JSON, as OpenClaw&apos;s own config writes do, so comments are lost</source>
        <translation>openclaw.json 是 JSON5（含注释或未加引号的键）；它会像 OpenClaw 自己写配置时那样被改写为普通 JSON，注释会丢失</translation>
    </message>
    <message>
        <source>the config is in the {layout} layout; these keys are for {target}</source>
        <translation>配置采用 {layout} 布局；这些键是给 {target} 的</translation>
    </message>
    <message>
        <source>OpenClaw was not found: no {config}, no {state} and no openclaw command on the PATH</source>
        <translation>未找到 OpenClaw：没有 {config}，没有 {state}，PATH 中也没有 openclaw 命令</translation>
    </message>
    <message>
        <source>install OpenClaw, or set OPENCLAW_STATE_DIR or OPENCLAW_CONFIG_PATH to where it keeps its files; meanwhile the memdesk app&apos;s doctor checks the workspace open in it as an agent would</source>
        <translation>请安装 OpenClaw，或把 OPENCLAW_STATE_DIR 或 OPENCLAW_CONFIG_PATH 设为它存放文件的位置；在此期间，memdesk 应用的诊断会像智能体那样检查其中打开的工作区</translation>
    </message>
    <message>
        <source>your agent&apos;s index is stale for {n} note</source>
        <translation>你的智能体的索引有 {n} 篇笔记已过期</translation>
    </message>
    <message>
        <source>your agent&apos;s index is stale for {n} notes</source>
        <translation>你的智能体的索引有 {n} 篇笔记已过期</translation>
    </message>
    <message>
        <source>the config uses memory.search / agents.entries</source>
        <translation>配置使用 memory.search / agents.entries</translation>
    </message>
    <message>
        <source>the config uses agents.defaults.memorySearch</source>
        <translation>配置使用 agents.defaults.memorySearch</translation>
    </message>
    <message>
        <source>the config was last written by OpenClaw {version}</source>
        <translation>配置最后由 OpenClaw {version} 写入</translation>
    </message>
    <message>
        <source>an agent database exists under agents/&lt;id&gt;/agent/</source>
        <translation>agents/&lt;id&gt;/agent/ 下有智能体数据库</translation>
    </message>
    <message>
        <source>an index exists under memory/&lt;agent&gt;.sqlite</source>
        <translation>memory/&lt;agent&gt;.sqlite 处有索引</translation>
    </message>
    <message>
        <source>nothing says otherwise; assuming the newest release</source>
        <translation>没有其他线索；按最新版本处理</translation>
    </message>
    <message>
        <source>chosen explicitly (detected {detected}: {reason})</source>
        <translation>已明确指定（检测结果为 {detected}：{reason}）</translation>
    </message>
    <message>
        <source>the config still has 2026.4 memorySearch keys; OpenClaw 2026.9 moves them to memory.search on start-up (openclaw doctor --fix)</source>
        <translation>配置中仍有 2026.4 的 memorySearch 键；OpenClaw 2026.9 会在启动时把它们移到 memory.search（openclaw doctor --fix）</translation>
    </message>
    <message>
        <source>the config has 2026.9 keys (memory.search / agents.entries) that OpenClaw 2026.4 does not read</source>
        <translation>配置中有 OpenClaw 2026.4 不读取的 2026.9 键（memory.search / agents.entries）</translation>
    </message>
    <message>
        <source>{path}: the agent has no index there yet (run `openclaw memory index`)</source>
        <translation>{path}：智能体在那里还没有索引（请运行 `openclaw memory index`）</translation>
    </message>
    <message>
        <source>{path}: cannot open the agent&apos;s index read-only ({error})</source>
        <translation>{path}：无法以只读方式打开智能体的索引（{error}）</translation>
    </message>
    <message>
        <source>{path}: no OpenClaw memory tables in this database</source>
        <translation>{path}：此数据库中没有 OpenClaw 的记忆表</translation>
    </message>
    <message>
        <source>vector search of the agent&apos;s index failed: {error}</source>
        <translation>智能体索引的向量搜索失败：{error}</translation>
    </message>
    <message>
        <source>keyword leg only (no vectors searched)</source>
        <translation>仅关键词检索（未搜索向量）</translation>
    </message>
    <message>
        <source>native build (not portable)</source>
        <translation>本机编译版本（不可移植）</translation>
    </message>
    <message>
        <source>{variant} (forced by {env}; this CPU&apos;s best: {best})</source>
        <translation>{variant}（由 {env} 指定；本机 CPU 最佳：{best}）</translation>
    </message>
    <message>
        <source>{variant} (runtime dispatch; baseline {baseline} available)</source>
        <translation>{variant}（运行时选择；含基线 {baseline}）</translation>
    </message>
    <message>
        <source>{variant} (runtime dispatch; no baseline {baseline} variant)</source>
        <translation>{variant}（运行时选择；缺少基线 {baseline} 变体）</translation>
    </message>
    <message>
        <source>{env}={value}: llama.cpp has no such CPU backend (it has: {names})</source>
        <translation>{env}={value}：llama.cpp 没有这个 CPU 后端（现有：{names}）</translation>
    </message>
    <message>
        <source>{env}={value}: this CPU lacks the instructions llama.cpp&apos;s {value} backend needs</source>
        <translation>{env}={value}：本机 CPU 缺少 llama.cpp 的 {value} 后端所需的指令</translation>
    </message>
    <message>
        <source>none of llama.cpp&apos;s CPU backends runs on this CPU ({names})</source>
        <translation>llama.cpp 的 CPU 后端都无法在本机 CPU 上运行（{names}）</translation>
    </message>
    <message>
        <source>{env}={value}: this llama.cpp is a native build, with no CPU backend variants</source>
        <translation>{env}={value}：此 llama.cpp 为本机编译版本，没有 CPU 后端变体</translation>
    </message>
    <message>
        <source>llama.cpp could not load its CPU backend {path}</source>
        <translation>llama.cpp 无法加载其 CPU 后端 {path}</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 reads importance and triggers only at the very end of a line; here the agent ignores it</source>
        <translation>OpenClaw 2026.9 只读取位于行末的重要度和触发词；写在这里，智能体会忽略它</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 reads importance and triggers only in MEMORY.md and USER.md; in this note the agent ignores it</source>
        <translation>OpenClaw 2026.9 只在 MEMORY.md 和 USER.md 中读取重要度和触发词；在这篇笔记里，智能体会忽略它</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 reads no project comments in USER.md</source>
        <translation>OpenClaw 2026.9 不读取 USER.md 中的项目注释</translation>
    </message>
    <message>
        <source>a project comment without a valid name: OpenClaw 2026.9 stores it as an invalid project and hides these lines from every search</source>
        <translation>项目注释没有有效的名称：OpenClaw 2026.9 会把它记为无效项目，并在所有搜索中隐藏这些行</translation>
    </message>
    <message>
        <source>lines {start}-{end}</source>
        <translation>第 {start}-{end} 行</translation>
    </message>
    <message>
        <source>name the project (&lt;!-- project: atlas --&gt;, several separated by ;) or remove the comment</source>
        <translation>写上项目名称（&lt;!-- project: atlas --&gt;，多个名称用 ; 分隔），或删除这条注释</translation>
    </message>
    <message>
        <source>run openclaw memory index once while online, or point models.providers.llama-cpp.localService.command at a llama-server {release} you have</source>
        <translation>在联网时运行一次 openclaw memory index，或把 models.providers.llama-cpp.localService.command 指向你已有的 llama-server {release}</translation>
    </message>
    <message>
        <source>set the keyword tokenizer to trigram (store.fts.tokenizer: &quot;trigram&quot;; Apply to OpenClaw… writes it) or give the agent an embedding model (provider: &quot;local&quot;)</source>
        <translation>把关键词分词器设为 trigram（store.fts.tokenizer: &quot;trigram&quot;；“应用到 OpenClaw…”可以写入），或给智能体配置一个嵌入模型（provider: &quot;local&quot;）</translation>
    </message>
    <message>
        <source>the whole note</source>
        <translation>整篇笔记</translation>
    </message>
    <message>
        <source>your agent embeds with provider &quot;local&quot;, and no llama-server is on this machine yet: OpenClaw downloads llama.cpp {release} from GitHub the first time it embeds; offline that download fails, and with it the agent&apos;s memory index</source>
        <translation>你的智能体用 provider &quot;local&quot; 生成嵌入，而本机还没有 llama-server：OpenClaw 会在第一次生成嵌入时从 GitHub 下载 llama.cpp {release}；离线时下载会失败，智能体的记忆索引也随之失败</translation>
    </message>
    <message>
        <source>{path}:{line}: a bare or malformed &lt;!-- project: --&gt; comment; OpenClaw 2026.9 stores it as an invalid project and hides {what} from every search</source>
        <translation>{path}:{line}：&lt;!-- project: --&gt; 注释为空或格式错误；OpenClaw 2026.9 会把它记为无效项目，并在所有搜索中隐藏{what}</translation>
    </message>
    <message>
        <source>{percent}% of your notes&apos; text is Chinese, Japanese or Korean, and your agent searches by keyword only (no embedding provider) with the unicode61 tokenizer, which makes each run of such text one word: most questions asked in Chinese find nothing</source>
        <translation>你的笔记中 {percent}% 的文字是中文、日文或韩文，而你的智能体只按关键词搜索（没有嵌入提供方），且使用 unicode61 分词器，它把每一串这样的文字当作一个词：大多数用中文提的问题什么也找不到</translation>
    </message>
    <message>
        <source>OpenClaw 2026.9 reads importance only as a whole number from 1 to 10; it ignores this one</source>
        <translation>OpenClaw 2026.9 只读取 1 到 10 的整数作为重要度；这一个会被忽略</translation>
    </message>
    <message>
        <source>importance {0}</source>
        <translation>重要度 {0}</translation>
    </message>
    <message>
        <source>project {0}</source>
        <translation>项目 {0}</translation>
    </message>
    <message>
        <source>Importance ×{0}</source>
        <translation>重要度 ×{0}</translation>
    </message>
    <message>
        <source>the entry is marked &lt;!-- importance: {0} --&gt;: × (0.75 + 0.05 × {0})</source>
        <translation>该条目标注了 &lt;!-- importance: {0} --&gt;：× (0.75 + 0.05 × {0})</translation>
    </message>
    <message>
        <source>project {0} is active in the session</source>
        <translation>项目 {0} 是本会话的活动项目</translation>
    </message>
    <message>
        <source>project {0} is not the session&apos;s project</source>
        <translation>项目 {0} 不是本会话的项目</translation>
    </message>
    <message>
        <source>project {0}; no project context (as in the CLI), so no change</source>
        <translation>项目 {0}；没有项目上下文（如命令行），因此不变</translation>
    </message>
    <message>
        <source>Project ×{0}</source>
        <translation>项目 ×{0}</translation>
    </message>
    <message>
        <source>“{0}” ×{1} (line {2})</source>
        <translation>“{0}” ×{1}（第 {2} 行）</translation>
    </message>
    <message>
        <source>Words matched</source>
        <translation>匹配的词</translation>
    </message>
    <message>
        <source>none of the query&apos;s words: found by meaning</source>
        <translation>没有匹配查询中的词：按语义找到</translation>
    </message>
    <message>
        <source>Vector {0}</source>
        <translation>向量分数 {0}</translation>
    </message>
    <message>
        <source>how close the meaning is (cosine similarity of the embeddings; 1 = same meaning)</source>
        <translation>语义有多接近（嵌入向量的余弦相似度；1 = 含义相同）</translation>
    </message>
    <message>
        <source>Text {0}</source>
        <translation>文本分数 {0}</translation>
    </message>
    <message>
        <source>how well the words match (BM25 keyword score; rarer words and more matches score higher)</source>
        <translation>词语匹配程度（BM25 关键词分数；越罕见的词、匹配越多，分数越高）</translation>
    </message>
    <message>
        <source>Text ×{0}</source>
        <translation>文本分数 ×{0}</translation>
    </message>
    <message>
        <source>{0} of {1} query words searched ({2}); already in the text score above</source>
        <translation>检索了查询的 {1} 个词中的 {0} 个（{2}）；已计入上面的文本分数</translation>
    </message>
    <message>
        <source>{0} is in half the notes or more</source>
        <translation>{0} 出现在一半或更多的笔记中</translation>
    </message>
    <message>
        <source>{0} are in half the notes or more</source>
        <translation>{0} 出现在一半或更多的笔记中</translation>
    </message>
    <message>
        <source>Text —</source>
        <translation>文本分数 —</translation>
    </message>
    <message>
        <source>not a keyword hit</source>
        <translation>不是关键词命中</translation>
    </message>
    <message>
        <source>Combined {0}</source>
        <translation>综合分数 {0}</translation>
    </message>
    <message>
        <source>keyword-only while notes are being embedded: the text score is the score, the weights do not apply (the query runs again, hybrid, when they are done)</source>
        <translation>笔记嵌入期间仅用关键词：文本分数即为分数，权重不起作用（嵌入完成后会以混合检索重新查询）</translation>
    </message>
    <message>
        <source>keyword-only while the embedding model loads: the text score is the score, the weights do not apply (the query runs again, hybrid, when it is ready)</source>
        <translation>嵌入模型加载期间仅用关键词：文本分数即为分数，权重不起作用（模型就绪后会以混合检索重新查询）</translation>
    </message>
    <message>
        <source>keyword-only mode (no embedding model): the text score is the score, the weights do not apply</source>
        <translation>仅关键词模式（没有嵌入模型）：文本分数即为分数，权重不起作用</translation>
    </message>
    <message>
        <source>not embedded yet (a sync adds its vector): scored by its text score alone, as a keyword search scores it</source>
        <translation>尚未嵌入（同步会补上它的向量）：只按文本分数计分，与关键词检索相同</translation>
    </message>
    <message>
        <source>vector-only mode: the vector score is the score</source>
        <translation>仅向量模式：向量分数即为分数</translation>
    </message>
    <message>
        <source>vector</source>
        <translation>向量</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>(the weights&apos; sum)</source>
        <translation>（权重之和）</translation>
    </message>
    <message>
        <source>Decay ×1</source>
        <translation>时间衰减 ×1</translation>
    </message>
    <message>
        <source>temporal decay is off</source>
        <translation>时间衰减已关闭</translation>
    </message>
    <message>
        <source>this note has no date (like MEMORY.md): it never ages</source>
        <translation>这条笔记没有日期（如 MEMORY.md）：不会随时间衰减</translation>
    </message>
    <message>
        <source>Decay ×{0}</source>
        <translation>时间衰减 ×{0}</translation>
    </message>
    <message>
        <source>the note is {0} days old, half-life {1} days</source>
        <translation>笔记已有 {0} 天，半衰期 {1} 天</translation>
    </message>
    <message>
        <source>the note has no date (like MEMORY.md): it counts as current</source>
        <translation>这条笔记没有日期（如 MEMORY.md）：视为当前信息</translation>
    </message>
    <message>
        <source>Recency +{0}</source>
        <translation>时效加分 +{0}</translation>
    </message>
    <message>
        <source>the query asks for the current state; {0} (at most +{1})</source>
        <translation>查询问的是当前状态；{0}（最多 +{1}）</translation>
    </message>
    <message>
        <source>Recency +0</source>
        <translation>时效加分 +0</translation>
    </message>
    <message>
        <source>the query does not ask for the current state (or it asks about a past occasion or period): no note gains for being recent</source>
        <translation>查询问的不是当前状态（或问的是过去某次活动、某个时期）：较新的笔记不加分</translation>
    </message>
    <message>
        <source>Date match +{0}</source>
        <translation>日期匹配 +{0}</translation>
    </message>
    <message>
        <source>dated {0}, in the period the query names</source>
        <translation>日期 {0}，在查询所指的时间段内</translation>
    </message>
    <message>
        <source>recency {0}</source>
        <translation>时效加分 {0}</translation>
    </message>
    <message>
        <source>date match {0}</source>
        <translation>日期匹配 {0}</translation>
    </message>
    <message>
        <source>the query asks for the current state, but the lines here that match it only ask or plan (a question, a to-do): not an answer, so no bonus for being current</source>
        <translation>查询问的是当前状态，但这里与之匹配的行只是在提问或计划（问题、待办）：不是答案，因此没有“当前”加分</translation>
    </message>
    <message>
        <source>Supersedes +{0}</source>
        <translation>取代旧说法 +{0}</translation>
    </message>
    <message>
        <source>states the same fact later than {0}:{1} (“{2}”): for the current state the newer statement wins</source>
        <translation>比 {0}:{1}（“{2}”）更晚陈述了同一事实：问当前状态时，较新的说法优先</translation>
    </message>
    <message>
        <source>Superseded</source>
        <translation>已被取代</translation>
    </message>
    <message>
        <source>{0}:{1} states the same fact later (“{2}”)</source>
        <translation>{0}:{1} 更晚陈述了同一事实（“{2}”）</translation>
    </message>
    <message>
        <source>newer statement {0}</source>
        <translation>较新说法 {0}</translation>
    </message>
    <message>
        <source>Same note −{0}</source>
        <translation>同一笔记 −{0}</translation>
    </message>
    <message>
        <source>another chunk of this note scores higher and ranks above it</source>
        <translation>这条笔记的另一个片段得分更高，排在它前面</translation>
    </message>
    <message>
        <source>same note {0}</source>
        <translation>同一笔记 {0}</translation>
    </message>
    <message>
        <source>Final {0}</source>
        <translation>最终分数 {0}</translation>
    </message>
    <message>
        <source>combined {0} × decay {1}</source>
        <translation>综合分数 {0} × 时间衰减 {1}</translation>
    </message>
    <message>
        <source>dated {0}, {2} days old, half-life {1} days</source>
        <translation>日期 {0}，已有 {2} 天，半衰期 {1} 天</translation>
    </message>
    <message>
        <source>picked first: nothing above it to be similar to</source>
        <translation>第一个被选中：上方没有可比较相似度的结果</translation>
    </message>
    <message>
        <source>most like {0}:{1} (similarity {2}), which ranks above it</source>
        <translation>与排在它上方的 {0}:{1} 最相似（相似度 {2}）</translation>
    </message>
    <message>
        <source>similarity {0} to a hit above it</source>
        <translation>与上方某条结果的相似度为 {0}</translation>
    </message>
    <message>
        <source>MMR λ {0}</source>
        <translation>多样性重排（MMR）λ {0}</translation>
    </message>
    <message>
        <source>rank {0} by score → {1} for diversity; {2}</source>
        <translation>按分数排第 {0} 名 → 多样性重排后第 {1} 名；{2}</translation>
    </message>
    <message>
        <source>without decay: rank {0}</source>
        <translation>不计时间衰减：第 {0} 名</translation>
    </message>
    <message>
        <source>without decay: not in the results</source>
        <translation>不计时间衰减：不在结果中</translation>
    </message>
    <message>
        <source>without recency: rank {0}</source>
        <translation>不计时效加分：第 {0} 名</translation>
    </message>
    <message>
        <source>without recency: not in the results</source>
        <translation>不计时效加分：不在结果中</translation>
    </message>
    <message>
        <source>without MMR: rank {0}</source>
        <translation>不做多样性重排：第 {0} 名</translation>
    </message>
    <message>
        <source>What if</source>
        <translation>假如</translation>
    </message>
    <message>
        <source>Cut-off</source>
        <translation>截断</translation>
    </message>
    <message>
        <source>hits under min score {0} are dropped</source>
        <translation>低于最低分数 {0} 的结果会被丢弃</translation>
    </message>
    <message>
        <source>lines {0}–{1}</source>
        <translation>第 {0}–{1} 行</translation>
    </message>
    <message>
        <source>rank {0}</source>
        <translation>第 {0} 名</translation>
    </message>
</context>
<context>
    <name>help</name>
    <message>
        <source>Down (in the search box)</source>
        <translation>↓（在搜索框中）</translation>
    </message>
    <message>
        <source>Move into the results</source>
        <translation>移到结果列表</translation>
    </message>
    <message>
        <source>Enter (in the results)</source>
        <translation>Enter（在结果列表中）</translation>
    </message>
    <message>
        <source>Open the selected hit</source>
        <translation>打开选中的结果</translation>
    </message>
    <message>
        <source>Space (in the results)</source>
        <translation>空格（在结果列表中）</translation>
    </message>
    <message>
        <source>Tick / untick the hit as relevant</source>
        <translation>勾选 / 取消勾选该结果为相关</translation>
    </message>
    <message>
        <source>Esc (in the results or editor)</source>
        <translation>Esc（在结果列表或编辑器中）</translation>
    </message>
    <message>
        <source>Back to the search box</source>
        <translation>回到搜索框</translation>
    </message>
    <message>
        <source>Enter / Shift+Enter (in Find)</source>
        <translation>Enter / Shift+Enter（在查找中）</translation>
    </message>
    <message>
        <source>Next / previous match</source>
        <translation>下一个 / 上一个匹配</translation>
    </message>
    <message>
        <source>Ctrl+wheel</source>
        <translation>Ctrl+滚轮</translation>
    </message>
    <message>
        <source>Zoom the editor or the results</source>
        <translation>缩放编辑器或结果列表</translation>
    </message>
    <message>
        <source>unavailable: {reason}</source>
        <translation>不可用：{reason}</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <source>llama.cpp CPU backend</source>
        <translation>llama.cpp CPU 后端</translation>
    </message>
    <message>
        <source>Index</source>
        <translation>索引</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Browse, search and tune an agent’s Markdown memory, offline.</source>
        <translation>离线浏览、搜索和调优智能体的 Markdown 记忆。</translation>
    </message>
</context>
<context>
    <name>ClockButton</name>
    <message>
        <source>Searching memory as it was on {0}: the clock is that day until Back to now.</source>
        <translation>正在按 {0} 当天的记忆搜索：在点“回到现在”之前，时钟就是那一天。</translation>
    </message>
    <message>
        <source>Follow newest note</source>
        <translation>跟随最新笔记</translation>
    </message>
    <message>
        <source>Measure from the day of the workspace&apos;s newest dated note again</source>
        <translation>重新以工作区最新一篇带日期笔记的日期为准</translation>
    </message>
    <message>
        <source>Recency, decay and dates such as “last week” or “in March” count from this day.</source>
        <translation>新近度、衰减以及“上周”“三月”这类日期都从这一天算起。</translation>
    </message>
    <message>
        <source>as of today</source>
        <translation>截至今天</translation>
    </message>
    <message>
        <source>as of {0} (set)</source>
        <translation>截至 {0}（手动）</translation>
    </message>
    <message>
        <source>as of {0}</source>
        <translation>截至 {0}</translation>
    </message>
    <message>
        <source>The search clock: recency, decay and relative dates are measured from this day. Default: the workspace&apos;s newest dated note ({0}). Click to pick another day.</source>
        <translation>搜索时钟：新近度、衰减和相对日期都从这一天算起。默认为工作区最新一篇带日期的笔记（{0}）。点击可选择其他日期。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>FilterButton</name>
    <message>
        <source>Only notes in these folders:</source>
        <translation>只搜索这些文件夹中的笔记：</translation>
    </message>
    <message>
        <source>From</source>
        <translation>从</translation>
    </message>
    <message>
        <source>To</source>
        <translation>到</translation>
    </message>
    <message>
        <source>A note&apos;s day: the date in its name, else its last change.</source>
        <translation>笔记的日期：文件名中的日期，否则为最后修改日期。</translation>
    </message>
    <message>
        <source>Clear filters</source>
        <translation>清除筛选</translation>
    </message>
    <message>
        <source>Filter · {0}</source>
        <translation>筛选 · {0}</translation>
    </message>
    <message>
        <source>Filter</source>
        <translation>筛选</translation>
    </message>
    <message>
        <source>Search only some folders or days: {0}</source>
        <translation>只搜索部分文件夹或日期：{0}</translation>
    </message>
    <message>
        <source>Search only some folders or days</source>
        <translation>只搜索部分文件夹或日期</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>%1 File</source>
        <translation>%1 文件</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <translation>快捷方式</translation>
    </message>
    <message>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
</TS>
