import { defineTool, type Skill, type Tool } from "@agentry/core";

/** Seed 000 "Configuration File", verbatim. */
export const SEED_CONFIG_JSON = String.raw`{
  "agents": [
    {
      "agentId": "reading-list",
      "displayName": "Reading List Manager",
      "systemPrompt": "You are a reading list manager. Help the user track articles, papers, and links they want to read. You can add items, list the queue, search for items, and mark items as read.",
      "toolAllowlist": ["reading_list_*"],
      "toolDenylist": ["reading_list_delete"],
      "toolExposure": "mixed",
      "skillAllowlist": ["notes"],
      "capabilityAllowlist": ["lists.*"],
      "capabilityDenylist": ["lists.write"],
      "agentAllowlist": ["todo", "journal"],
      "uiVisible": true,
      "apiExposed": false
    },
    {
      "agentId": "todo",
      "displayName": "Todo Manager",
      "systemPrompt": "You are a todo list manager. Help the user track tasks, set reminders, and stay organized.",
      "toolAllowlist": ["todo_*"],
      "uiVisible": true
    },
    {
      "agentId": "journal",
      "displayName": "Personal Journal",
      "systemPrompt": "You are a personal journal assistant. Help the user reflect on their day, capture thoughts, and review past entries.",
      "toolAllowlist": ["journal_*"],
      "uiVisible": true
    },
    {
      "agentId": "general",
      "displayName": "General Assistant",
      "systemPrompt": "You are a helpful general assistant.",
      "toolAllowlist": null,
      "uiVisible": true
    }
  ]
}`;

/** A fresh parse of the seed configuration (callers may modify it). */
export const seedConfig = (): { agents: unknown[] } => JSON.parse(SEED_CONFIG_JSON) as { agents: unknown[] };

/** A do-nothing tool with this description. */
export function tool(name: string, description = `${name} tool.`): Tool {
  return defineTool({ name, description, input: { type: "object" }, execute: () => null });
}

/** A skill of plugin `id`, with paths under /skills/{id}. */
export function skill(id: string, description = `The ${id} skill.`): Skill {
  return {
    id,
    name: id[0]!.toUpperCase() + id.slice(1),
    description,
    skillPath: `/skills/${id}/SKILL.md`,
    cliPath: `/skills/${id}/bin/${id}`,
  };
}
