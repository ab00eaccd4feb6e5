import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { defineTool, type Tool, type ToolContext } from "@agentry/core";

describe("defineTool inference", () => {
  it("infers execute's arguments from a zod 4 schema (defaults make fields present)", () => {
    const tool = defineTool({
      name: "t",
      description: "d",
      input: z.object({ a: z.number(), b: z.string().default("x"), c: z.boolean().optional() }),
      execute: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b: string; c?: boolean | undefined }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return args.a;
      },
    });
    type Args = { a: number; b: string; c?: boolean | undefined };
    // With an `execute`, the tool's `execute` is there to call (`Tool.execute` is optional: client tools).
    expectTypeOf(tool).toEqualTypeOf<Tool<Args, number> & Required<Pick<Tool<Args, number>, "execute">>>();
  });

  it("infers execute's arguments from a zod 3 schema", () => {
    defineTool({
      name: "t",
      description: "d",
      input: z3.object({ title: z3.string(), tags: z3.array(z3.string()) }),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ title: string; tags: string[] }>();
        return null;
      },
    });
  });

  it("leaves arguments unknown for a plain JSON Schema", () => {
    const tool = defineTool({
      name: "t",
      description: "d",
      input: { type: "object", properties: { a: { type: "number" } } },
      execute: (args) => {
        expectTypeOf(args).toBeUnknown();
        return "ok";
      },
    });
    expectTypeOf(tool).toEqualTypeOf<Tool<unknown, string> & Required<Pick<Tool<unknown, string>, "execute">>>();
  });

  it("types requiresApproval's arguments like execute's", () => {
    defineTool({
      name: "t",
      description: "d",
      input: z.object({ path: z.string() }),
      requiresApproval: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string }>();
        return args.path.startsWith("/");
      },
      execute: () => null,
    });
  });
});
