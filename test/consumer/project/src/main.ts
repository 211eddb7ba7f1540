import { service } from './service.js';

process.stdout.write(JSON.stringify(await service()) + '\n');
