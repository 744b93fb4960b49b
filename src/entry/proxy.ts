/** `cairn/proxy`: the egress proxy that injects credentials for branches holding a grant. */
export {
  APPROVAL_HEADER,
  ERROR_HEADER,
  HANDLE_HEADER,
  type ProxyOptions,
  type RunningProxy,
  startProxy,
} from '../keys/proxy.js';
