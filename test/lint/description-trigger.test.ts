import { describe, expect, it } from "vitest";
import { lacksTrigger, statesTrigger } from "../../src/protocol/description-trigger.js";

/** The wordings real collections use to say when a skill applies, and descriptions that only say what it is or does. */
describe("statesTrigger", () => {
  const when = [
    "Use when the user asks to fill a PDF form.",
    "Mines transcripts for friction. Use to audit skill activation, or gather evidence before a refactor.",
    "Use this skill to get context about lakehouses and their features.",
    "Cheminformatics toolkit. Use rdkit for advanced control and custom sanitization.",
    "Compile a morning brief from mail and calendar. Use at workday start.",
    "Run 15 health checks on the wiki. Use weekly or after ingest batches.",
    "Configure the repo for the other skills. Run once before first use of them.",
    "Build native UI with Expo. For routing and navigation, use the expo-router skill.",
    "UiPath BPMN authoring. For .flow use uipath-maestro-flow; for case plans use uipath-maestro-case.",
    "Task management. For Orchestrator→uipath-platform, codedapp→uipath-coded-apps.",
    "Molecular docking for structure-based drug design. Not for affinity prediction.",
    "Wrapper around RDKit. Preferred for standard drug discovery.",
    "Performance guidelines. Applies to tasks involving Hermes optimization or jank.",
    "Tearsheet of recorded KPIs. Fires on \"tearsheet\", \"KPI summary\".",
    "Mandatory gate before every git commit and pull request.",
    "The design family's entry router when unsure which design skill applies.",
    "Interactive training for the CLI. Say \"cliexpert\" to start.",
    "Design Azure infrastructure. When to use this skill: creating resources, drawing diagrams.",
    "Generate a map of all files relevant to a task before making changes.",
    "ダッシュボードの設計を引導する。「ダッシュボード設計」と言われたら使う。",
    "失敗の後に振り返りたいときに使う。",
    "事業計画書を作成するスキル。「事業計画」の話が出たら必ずこのスキルを使用する。",
    "コードのレビューを依頼するスキル。セカンドオピニオンが欲しい場面で使用。",
    "安全なコミットを支援するスキル。「コミットして」などで使う。",
    "価格戦略設計スキル。トリガー：「価格設定」「値付け」。",
    "将 PDF 转为图片。当用户要求转换 PDF 时使用。",
    "诊断连接问题。当工具失败时调用。",
    "开发者体验专家。在搭建新项目或发现开发摩擦时主动使用。",
    "當使用者要求轉換 PDF 時，載入此技能。",
    "发现和研究 AI 智能体的技能。触发词：AgentFolio、智能体发现。",
    "规划复杂任务的构建计划。触发条件：用户请求多 PR 任务。",
    "Azure AI 文本分析 SDK。适用于文本情感分析和实体识别。",
    "Nuxt 全栈 Vue 框架。用于开发 Nuxt 应用、服务器路由或混合渲染。",
    "Anthony Fu 的工具和约定。用于设置新项目，或当用户提到 Anthony Fu 的偏好时。",
    "必须用于 Vue.js 任务。",
    "Plans the deck's storyboard. When the user wants an actual .pptx generated, hand off to **pptx-build**.",
    "Guardrails for co-writing a long document. Hands critique to doc-review.",
  ];
  const what = [
    "Toolkit for styling artifacts with a theme.",
    "Create a README.md file for the project.",
    "Generate comprehensive market research reports in the style of consulting firms.",
    "Ready-to-use prompts for a .NET framework upgrade.",
    "Generate complete solutions for specific Dataverse SDK use cases with architecture recommendations.",
    "Generate an interactive bash wizard for a one-off migration, an A→B state transition.",
    "Google Calendar: Show upcoming events across all calendars.",
    "提供仓颉编程语言的完备知识库及辅助工具。",
    "为 AI 智能体提供持久化、可检索的知识管理的混合记忆系统。",
    "提供实时数据，使用官方 API 获取。",
    "适当的时间管理与相当全面的当前进度报告。",
    "動画ファイルから文字起こしと議事録を自動生成。",
    "Hands-on guide to web performance tuning.",
    // Commas do not stretch a when-clause past six words before its verb, nor join two clauses.
    "Notes on when to call, retry, or abandon a request and what the backoff table in the config file is.",
  ];
  when.push(
    "Turns the backlog into pending tasks. Use after planning, or when backlogs already exist but no tasks do.",
    "Generates pending questions when unresolved decisions should be answered before implementation.",
    "Creates a pending project when an idea discussed in chat has already been agreed.",
    // The skill named bare between the verb and the condition, as "this skill" or "the skill" may be.
    "Use skill if you are driving mcpc to smoke-check an MCP server over stdio.",
    "Smoke-checks an MCP server. Use skill when driving mcpc, or skill before a release.",
    // A when-clause whose subject is a list separated by commas: the list is one word of the clause.
    "Create a mini-project when an idea, feature, or concept has already been discussed.",
    "Create a queue when an idea, feature, concept, migration, remediation, or follow-up for the current project has already been discussed.",
    "Plan the release when tests, docs and changelog are ready.",
    "user wants to send a WhatsApp message to a contact or group.",
    "複数の実装案を比較したい時、設計判断の実装に使用。",
    "行业研究框架。触发场景（命中任一即读本 skill）：用户询问行业景气度、板块轮动。",
    "魔鬼代言人。当用户要「挑战我的投资观点」「找出这个方案的漏洞」「做一次事前验尸」或者在做出重大决定之前想听反对意见时， 用本 skill。",
  );
  // The usage conditions stated in other real wordings: a closing 時 left out, Japanese sentences that end in the verb, inflected English verbs.
  when.push(
    "產出 KPI 計算模組。使用此 Skill 當使用者提及 KPI 計算、指標引擎、或任何需要計算指標的場景。",
    "建立 MCP Server 的指南。使用此 Skill 當需要建立 MCP Server 整合外部 API。",
    "生成 KPI 计算模块。使用此技能当用户提及 KPI 计算或指标引擎。",
    "协助撰写内部文件。当被要求撰写状态报告或事件报告。",
    "鸿蒙应用开发经验沉淀 Skill。构建成功后使用此 Skill 记录难点，构建失败排查时优先查阅 Evolution.md。",
    "PR Flow tweak 路径，用于非 BUG 小改动 PR。",
    "Flutter アプリのデバッグ用 SKILL。「アプリ起動」「クラッシュ確認」では必ず使う。",
    "技術ドキュメントを作成する SKILL。技術文書の差分提案時は必ずロードする。",
    "一時ファイルの置き場を提案する SKILL。「どこに書くか」決めるときは必ず従う。",
    "dotmet の解析レポートを読み、結果を整理する。解析結果の整理で使う。",
    "Go のコーディング規約 SKILL。「Go を書く」「*.go の実装・修正」では必ずロードし、該当 references/ だけ読む。",
    "Go のコーディング規約 SKILL。Dart / Flutter の言語規約には使わない。",
    "Audit a file for TODO comments. Trigger with \"check for todos\" or \"scan for TODOs\".",
    "Task management agent. Auto-invoked for task creation and status tracking.",
    "3-phase knowledge search. Auto-invoked when tasks involve finding code or documentation.",
    "Query and manage the project backlog. Auto-activates on keywords like \"backlog\" or \"todo\".",
    "Release checklist, activated before a deploy.",
    "Migration notes, loaded only before a schema change.",
    "CRITICAL - Before ANY file write, audit loaded skills for violations.",
    "Audits loaded skills. When in a release branch, check every write.",
    // The name to take up written as code, a partner named with "with", and the boundary said with "do not use".
    "Use `task-agent` for bounded frontend component or browser changes. Skip backend-only work.",
    "Use `analysis-agent` to map acceptance to validation.",
    "Use `review-agent` on implementation or repair diffs for hallucinated APIs. Skip work without a diff.",
    "Use with task-agent or review-agent for task-local cache scope, freshness, invalidation, and source-load risk.",
    "Cache scope review for one narrow engineering decision; do not use without a registered cache decision.",
  );
  // The condition as a label ("WHEN:"), Chinese labels and clauses (使用时：, 使用时机：, 使用场合：, 在以下情况下使用, …之前使用,
  // …前调用, 当… without the closing 时), and Japanese "…ときにトリガーする".
  when.push(
    "Azure database migration assistant. WHEN: migrating a SQL Server database to Azure SQL, assessing compatibility.",
    "Release notes helper. When: the user asks for a changelog entry.",
    "Figma 设计稿转代码。使用时：用户提供 Figma 链接并要求生成组件。",
    "Git 提交规范检查。使用时机：准备提交代码或编写提交信息。",
    "數據庫遷移工具。使用場合：需要升級資料庫結構。",
    "代码审查助手。在以下情况下使用：提交 PR、合并分支。",
    "安全扫描工具。在提交代码之前使用，检查密钥泄露。",
    "依赖审计。发布前调用此技能检查许可证。",
    "性能分析工具。当你需要定位慢查询或内存泄漏。",
    "PDF を画像に変換する。ユーザーが PDF の変換を求めたときにトリガーする。",
    "コミットメッセージを整える。コミット時にトリガー。",
  );
  what.push(
    // "when:" in lower case inside prose is no label; 目前使用 ("currently uses"), 之前使用的 ("used before"), 当前 ("current") and
    // 当心 ("beware") state no condition; a hook "fired at build time" (時にトリガーされる) is what the skill makes.
    "Explains the scheduling syntax: when: cron expression, every: interval.",
    "日志采集工具，目前使用 Loki 存储日志。",
    "替换之前使用的日志库，迁移到 pino。",
    "生成报告。当前版本支持 PDF 和 HTML。",
    "数据清洗脚本。当心大文件占用内存。",
    "ビルド時にトリガーされるフックを生成する。",
  );
  what.push(
    // "Triggers" doing something, "used for" naming a purpose, a trigger the skill creates: no usage condition.
    "Triggers the L5 Red Team Sub-Agent to rigorously audit a plugin against the pattern matrix.",
    "Generates the deployment scripts used for the staging cluster.",
    "Creates a trigger with a cron schedule for the nightly build.",
    "Runs the test suite. After the build, it tags a release, e.g. when versions match.",
    // 当前 ("current") after a verb, 然后 ("then") before one, で使う inside a noun phrase, に使い going on: no condition either.
    "读取配置文件，使用此当前目录下的模板生成报告。",
    "先分析代码结构，然后使用模板生成报告。",
    "Flutter で使うライブラリの一覧を生成する。",
    "API をデータの取得に使い、結果を表で表示する。",
    // "Do not use" about something other than the skill is no boundary of it.
    "Formats source files with the house style. Do not use them in generated code.",
  );
  for (const description of when) it(`reads a when in: ${description}`, () => expect(statesTrigger(description)).toBe(true));
  for (const description of what) it(`finds no when in: ${description}`, () => expect(statesTrigger(description)).toBe(false));
});

describe("lacksTrigger: a finding only on a description in a language whose forms the rule knows", () => {
  const unjudged = [
    "Usa esta habilidad cuando el usuario solicite un informe de ventas.",
    "Use esta skill quando o usuário pedir um relatório de vendas.",
    "Verwende diesen Skill, wenn der Nutzer einen Verkaufsbericht möchte.",
    "Utilise cette compétence lorsque l'utilisateur demande un rapport des ventes.",
    "Используй, когда нужен отчёт о продажах.",
    "사용자가 판매 보고서를 요청하면 이 스킬을 사용한다.",
    "Genera un informe de ventas con gráficos para el equipo.",
    // No word of either list: German, Italian and Dutch written with words the lists do not hold.
    "Hilft beim Schreiben von Commit-Nachrichten.",
    "Strumento per convertire documenti PDF in testo semplice.",
    "Hulpmiddel om PDF-documenten naar platte tekst te converteren.",
    "Commit-Nachrichten schreiben.",
    // Portuguese whose "Skill" and "Use" read as English words: they are Portuguese's too.
    "Skill para inventariar e organizar imagens, icones e logos do projeto. Use quando precisar mapear assets existentes.",
    "Skill dedicada a acessibilidade digital. Use quando precisar revisar WCAG, teclado e contraste.",
    // Russian with English in it: a fifth of the letters in a script without forms here, or as many words in it as English
    // function words, is enough.
    "Jira workflow for epics, stories and sprints. Активируется при epic, story, sprint, backlog.",
    "Создаёт epic и story в Jira for the team backlog, sprint board and release notes.",
  ];
  for (const description of unjudged) it(`does not judge: ${description}`, () => expect(lacksTrigger(description)).toBe(false));
  it("still judges English, Chinese and Japanese", () => {
    expect(lacksTrigger("Toolkit for styling artifacts with a theme.")).toBe(true);
    // "e.g." splits into words no list holds against English; one word of another language in English prose is outweighed.
    expect(lacksTrigger("Toolkit for the slide themes of a deck (e.g. dark mode), de luxe.")).toBe(true);
    expect(lacksTrigger("提供仓颉编程语言的完备知识库及辅助工具。")).toBe(true);
    expect(lacksTrigger("動画ファイルから文字起こしと議事録を自動生成。")).toBe(true);
    expect(lacksTrigger("Toolkit for styling artifacts. Use when the user asks to restyle slides.")).toBe(false);
    // Short English titles, told by the verbs descriptions open with.
    expect(lacksTrigger("Gmail: Send an email.")).toBe(true);
    expect(lacksTrigger("Create Spring Boot Java Project Skeleton")).toBe(true);
    // One word of another script in English prose, and Japanese with its long vowel marks, are still judged.
    expect(lacksTrigger("Toolkit for the Яндекс metrics dashboards and their exported reports.")).toBe(true);
    expect(lacksTrigger("サーバーのエラーレポート")).toBe(true);
  });
});
