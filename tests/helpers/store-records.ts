import type { NewRecord } from "@agentry/core";

/** A user message record with id `id`, as the store tests append them. */
export const text = (id: string, content: string): NewRecord => ({
  id,
  kind: "message",
  frame: null,
  message: { role: "user", content },
});

/** An approval request with id `requestId` for a `mark` call, as the store tests index them. */
export const request = (requestId: string) => ({
  requestId,
  toolCallId: `call-${requestId}`,
  name: "mark",
  args: {},
  depth: 0,
  parentId: null,
  reason: "tool requires approval",
});
