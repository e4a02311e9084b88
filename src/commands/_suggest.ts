// The CLI's "did you mean" suggestions: the library's, shared with the clients' option checker.
export { didYouMean, editDistance, suggest } from "../engine/_suggest.ts";
