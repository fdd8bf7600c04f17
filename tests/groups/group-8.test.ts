import { describeGroup } from "../setup/test-groups";

await describeGroup(8);
