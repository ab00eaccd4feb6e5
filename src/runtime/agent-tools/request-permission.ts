import { z } from "zod";
import { defineTool } from "../../tools/define-tool.js";
import type { Tool } from "../../contracts/tool.js";

/** `request_permission`: asks the user for a permission (always through an approval). */
export function requestPermission(): Tool {
  return defineTool({
    name: "request_permission",
    description:
      "Ask the user for a permission you need (e.g. to spend money or touch a shared resource). Returns the decision.",
    permissionClass: "subagent",
    requiresApproval: true,
    input: z.object({
      permission: z.string().describe("What you want to be allowed to do."),
      reason: z.string().optional().describe("Why you need it."),
    }),
    execute: ({ permission }) => ({ approved: true, permission }),
  });
}
