import { describe, expect, it } from "vitest";
import { statesTrigger } from "../../src/protocol/description-trigger.js";

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
  ];
  for (const description of when) it(`reads a when in: ${description}`, () => expect(statesTrigger(description)).toBe(true));
  for (const description of what) it(`finds no when in: ${description}`, () => expect(statesTrigger(description)).toBe(false));
});
