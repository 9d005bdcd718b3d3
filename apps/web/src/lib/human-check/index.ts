export { HumanCheckError, getHumanCheckToken, useHumanCheck } from './use-human-check';
export { getHumanCheckConfig, type HumanCheckConfig } from './get-human-check-config';
