// The send service as the edge uses it: the domain's, its refusals (no such template, data
// missing or unknown) rejected as the ApiErrors /send responds with.

import { createSendService, type SendService, type SendServiceDeps } from "../domain/send.js";
import { rejectingAsApiError } from "../errors.js";

export function createApiSendService(deps: SendServiceDeps): SendService {
  const service = createSendService(deps);
  return {
    send: rejectingAsApiError((request, context) => service.send(request, context)),
    captureRelayed: rejectingAsApiError((relayed) => service.captureRelayed(relayed)),
  };
}
