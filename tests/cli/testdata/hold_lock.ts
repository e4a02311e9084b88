// Takes the working folder's lock of the folder given as the first argument,
// says so on stdout, and holds it until the process is killed.
import { lockWorkingFolder } from "../../../src/cli/kit/working_folder_lock.ts";

await lockWorkingFolder(Deno.args[0]!, "test holder");
console.log("locked");
await new Promise(() => {});
