// The engines of the peer benchmark, in table order.
import type { PeerEngine } from "../_engine.ts";
import { floor } from "./floor.ts";
import { ours, oursClient, oursTrace } from "./ours.ts";
import { jsonLogicEngine } from "./json_logic.ts";
import { jsonRulesEngine } from "./json_rules_engine.ts";
import { casbin } from "./casbin.ts";
import { cedarEngine } from "./cedar.ts";

export const ENGINES: readonly PeerEngine[] = [
  floor,
  ours,
  oursTrace,
  oursClient,
  jsonLogicEngine,
  jsonRulesEngine,
  casbin,
  cedarEngine,
] as PeerEngine[];
