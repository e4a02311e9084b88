/**
 * Help as users expect it (docs/cli.md, "help" and "completions"): the
 * top-level help lists every command and subcommand the dispatcher runs,
 * `policy help <command>` prints what `policy <command> --help` prints, every
 * help ends with examples that parse, and the completion scripts complete
 * what `policy` dispatches (the bash one run by bash itself).
 */
import assert from "node:assert/strict";
import { COMMANDS } from "../_exports.ts";
import { scratch } from "../_helpers.ts";
import { parseCommandArgs } from "../../../src/cli/kit/args.ts";
import { commandTree, leaves } from "../../../src/cli/kit/command_tree.ts";

const bash = Deno.permissions.querySync({ name: "run", command: "bash" }).state === "granted";

/** Shell words of an example (single quotes only, as the examples use). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** Every command and subcommand `policy` dispatches, found by running it: `[name]` or `[group, sub]`. */
async function dispatched(s: Awaited<ReturnType<typeof scratch>>): Promise<string[][]> {
  const found: string[][] = [];
  for (const name of Object.keys(COMMANDS)) {
    const help = await s.run([name, "--help"]);
    assert.equal(help.code, 0, `policy ${name} --help`);
    const section = /\nSubcommands:\n((?: {2}\S.*\n)+)/.exec(help.stdout);
    if (section === null) {
      found.push([name]);
      continue;
    }
    for (const line of section[1]!.trimEnd().split("\n")) {
      const sub = line.trim().split(/\s+/)[0]!;
      const subHelp = await s.run([name, sub, "--help"]);
      assert.equal(subHelp.code, 0, `policy ${name} ${sub} --help`);
      assert.match(subHelp.stdout, new RegExp(`^Usage: policy ${name} ${sub}\\b`));
      found.push([name, sub]);
    }
  }
  return found;
}

Deno.test("the top-level help lists every command and subcommand the dispatcher runs", async () => {
  await using s = await scratch();
  const help = await s.run(["--help"]);
  assert.equal(help.code, 0);
  const commands = await dispatched(s);
  assert.ok(commands.some((c) => c.join(" ") === "policies import"), "policies import is listed");
  assert.ok(commands.length >= 20, `${commands.length} commands`);
  const listed = [...help.stdout.matchAll(/^ {2}(\S+(?: [a-z-]+)?) {2,}\S/gm)].map((m) => m[1]);
  assert.deepEqual(listed, commands.map((c) => c.join(" ")));
  // Anything that is not a command is refused, so the list is all there is.
  assert.equal((await s.run(["policies", "nope"])).code, 2);
});

Deno.test("policy help <command> prints exactly what policy <command> --help prints", async () => {
  await using s = await scratch();
  for (const command of [[], ...await dispatched(s)]) {
    const help = await s.run(["help", ...command]);
    const flag = await s.run([...command, "--help"]);
    assert.equal(help.code, 0, `policy help ${command.join(" ")}`);
    assert.equal(help.stdout, flag.stdout, `policy help ${command.join(" ")}`);
    assert.equal(help.stderr, "");
  }
  const unknown = await s.run(["help", "bulid"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /did you mean build\?/);
});

Deno.test("every help ends with two or three examples, each of which parses with the command's flags", async () => {
  await using s = await scratch();
  const specs = new Map(
    leaves(await commandTree(COMMANDS)).map((n) => [n.name, n.spec!]),
  );
  for (const command of [[], ...await dispatched(s)]) {
    const { stdout } = await s.run([...command, "--help"]);
    const section = /\nExamples:\n((?: {2}.*\n)+)\n*$/.exec(stdout);
    assert.ok(section, `policy ${command.join(" ")} --help ends with examples:\n${stdout}`);
    const examples = section[1]!.trimEnd().split("\n").map((l) => l.slice(2));
    assert.ok(
      examples.length >= 2 && examples.length <= 3,
      `policy ${command.join(" ")}: ${examples.length} examples`,
    );
    for (const example of examples) {
      assert.ok(example.startsWith(`policy ${command.join(" ")}`.trimEnd()), example);
      const spec = specs.get(command.join(" "));
      if (spec === undefined) continue; // a group's or the top level's examples run its commands
      const words = shellWords(example).slice(1 + command.length);
      const [redirect] = words.filter((w) => w === ">");
      const args = redirect === undefined ? words : words.slice(0, words.indexOf(">"));
      assert.doesNotThrow(() => parseCommandArgs(args, spec), example);
    }
  }
});

Deno.test({
  name:
    "the bash completion script, sourced in bash, completes commands, subcommands, flags and values",
  ignore: !bash,
  fn: async () => {
    await using s = await scratch();
    const script = await s.run(["completions", "bash"]);
    assert.equal(script.code, 0, script.stderr);
    const file = await s.write("policy.bash", script.stdout);
    await s.write("rules/paid.rule.json", "{}");
    const complete = async (...words: string[]) => {
      const output = await new Deno.Command("bash", {
        args: [
          "--norc",
          "--noprofile",
          "-c",
          [
            `source '${file}'`,
            `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")})`,
            "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))",
            "_policy",
            `printf '%s\\n' "\${COMPREPLY[@]}"`,
          ].join("\n"),
        ],
        cwd: s.wf,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      return new TextDecoder().decode(output.stdout).split("\n").filter((l) => l !== "").sort();
    };
    assert.deepEqual(await complete("policy", "pol"), ["policies"]);
    assert.deepEqual(await complete("policy", "policies", "re"), [
      "remove",
      "remove-rule",
      "rename",
    ]);
    assert.deepEqual(await complete("policy", "-w", "x", "--format", "json", "k"), ["keys"]);
    assert.deepEqual(await complete("policy", "policies", "add-rule", "--re"), ["--replace"]);
    assert.deepEqual(await complete("policy", "--format", "j"), ["json"]);
    assert.deepEqual(
      await complete("policy", "policies", "update-policy", "--defaults-effect", ""),
      ["allow", "custom", "deny", "kill_switch", "none", "throttle"],
    );
    assert.deepEqual(
      await complete("policy", "policies", "set-status", "--rule-id", "x", ""),
      ["active", "disabled"],
    );
    assert.deepEqual(await complete("policy", "help", "policies", "set"), ["set-status"]);
    assert.deepEqual(await complete("policy", "completions", ""), ["bash", "fish", "zsh"]);
    assert.deepEqual(
      await complete("policy", "policies", "add-rule", "--rule-file", "rules/"),
      ["rules/paid.rule.json"],
    );
    assert.deepEqual(await complete("policy", "fmt", "--ch"), ["--check"]);
    assert.deepEqual(await complete("policy", "policies", "add-rule", "--policy-key", ""), []);
  },
});

Deno.test("the zsh and fish scripts come from the same table: every command, subcommand and flag", async () => {
  await using s = await scratch();
  const tree = await commandTree(COMMANDS);
  for (const shell of ["zsh", "fish"]) {
    const { code, stdout } = await s.run(["completions", shell]);
    assert.equal(code, 0);
    for (const node of tree) {
      assert.ok(stdout.includes(node.word), `${shell}: ${node.word}`);
      for (const sub of node.subcommands) {
        assert.ok(stdout.includes(sub.word), `${shell}: ${sub.name}`);
      }
    }
    for (const leaf of leaves(tree)) {
      for (const flag of Object.keys(leaf.spec!.flags)) {
        const spelled = shell === "fish" ? `-l ${flag} ` : `--${flag}`;
        assert.ok(stdout.includes(spelled), `${shell}: ${leaf.name} --${flag}`);
      }
    }
    assert.match(stdout, shell === "zsh" ? /^#compdef policy$/m : /^complete -c policy -f$/m);
  }
  assert.match((await s.run(["completions", "zsh"])).stdout, /compadd -- bash zsh fish/);
  assert.match(
    (await s.run(["completions", "fish"])).stdout,
    /complete -c policy -n '__fish_seen_subcommand_from policies; and __fish_seen_subcommand_from set-status' -a 'active disabled'/,
  );
  const bad = await s.run(["completions", "tcsh"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no completions for "tcsh": bash, zsh or fish/);
});
