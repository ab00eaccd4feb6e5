import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, InvalidArgumentError, type Message } from "@agentry/core";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { echo, ofType, run, unmatchedStarts, user } from "./helpers.js";

const geolocate = defineTool({ name: "geolocate", description: "Where the user is", input: z.object({}) });

describe("a tool with no execute (the bare loop)", () => {
  it("suspends after its start (a server call of the same batch runs), and resumes with the client's result as its decision", async () => {
    const echoed: string[] = [];
    const countingEcho = { ...echo, execute: (a: { text: string }) => (echoed.push(a.text), a.text) };
    const provider = createFakeProvider([
      {
        toolCalls: [
          { id: "g1", name: "geolocate", args: {} },
          { id: "e1", name: "echo", args: { text: "first" } },
        ],
      },
      { text: "done" },
    ]);
    const history: Message[] = [user("where am I")];
    const first = await run({ provider, history, tools: [geolocate, countingEcho] });
    expect(first.result.status).toBe("suspended");
    expect(first.result.pendingApprovals).toMatchObject([{ toolCallId: "g1", name: "geolocate", client: true }]);
    expect(ofType(first.events, "client_tool_call")).toMatchObject([{ request: { toolCallId: "g1", client: true } }]);
    expect(ofType(first.events, "approval_request")).toEqual([]);
    expect(ofType(first.events, "tool_call_update")[0]).toMatchObject({
      toolCallId: "g1",
      status: "start",
      client: true,
    });
    expect(echoed).toEqual(["first"]); // its parallel sibling ran: its result is kept for the resume
    expect(first.result.resume?.results?.e1).toMatchObject({ result: "first" });

    const second = await run({
      provider,
      history: [...history, ...first.result.messages],
      tools: [geolocate, countingEcho],
      resume: { ...first.result.resume!, decisions: { g1: { approved: true, result: { city: "Lyon" } } } },
    });
    expect(second.result.status).toBe("complete");
    expect(echoed).toEqual(["first"]); // nothing ran twice
    const end = ofType(second.events, "tool_call_update").find((u) => u.toolCallId === "g1");
    expect(end).toMatchObject({ status: "end", client: true, result: { city: "Lyon" } });
    expect(unmatchedStarts([...first.events, ...second.events])).toEqual([]);
    expect(historyProblems([...history, ...first.result.messages, ...second.result.messages])).toEqual([]);
  });

  it("refuses a tool whose execute is not a function", async () => {
    await expect(
      run({ script: [{ text: "hi" }], tools: [{ ...geolocate, execute: "nope" as never }] }),
    ).rejects.toThrow(InvalidArgumentError);
    expect(() => defineTool({ name: "x", description: "d", input: z.object({}), execute: 3 as never })).toThrow(
      InvalidArgumentError,
    );
  });
});
