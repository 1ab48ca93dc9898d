import { serviceMain } from '@preflight/service-kit';
import { gatewayService } from './app.ts';
import { loadGatewayConfig } from './config.ts';

// The gateway keeps V8's allocation-site pretenuring (libs/config runtime-flags.ts): it reads
// no query results per request, and without it its young GCs were longer (docs/benchmarks-history.md).
await serviceMain(gatewayService(), () => loadGatewayConfig(), { runtimeFlags: false });
