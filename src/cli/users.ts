// billing users invite | list | remove: the console's users of a tenant (docs/console.md).
import type { Command } from 'commander';
import { withServices } from './database.ts';
import { print } from './output.ts';

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description("manage a tenant's console users");
  users
    .command('invite')
    .description('invite a person: prints the one-time link (valid 72 h) and e-mails it')
    .requiredOption('--tenant <tenantId>')
    .requiredOption('--email <email>')
    .requiredOption('--role <role>', 'admin, finance or viewer')
    .option('--locale <locale>', "the console's language for them: en, de, fr, es, it, nl or pl")
    .option('--json', 'print JSON')
    .action(
      async (options: {
        tenant: string;
        email: string;
        role: string;
        locale?: string;
        json?: boolean;
      }) => {
        const invitation = await withServices((services) =>
          services.consoleUsers.invite(options.tenant, {
            email: options.email,
            role: options.role,
            locale: options.locale,
          }),
        );
        if (options.json) print(invitation, true);
        else {
          console.log(`Invited ${invitation.user.email} (${invitation.user.role}).`);
          console.log(`One-time link, valid until ${invitation.expiresAt}:`);
          console.log(invitation.url);
        }
      },
    );
  users
    .command('list')
    .requiredOption('--tenant <tenantId>')
    .option('--json', 'print JSON')
    .action(async (options: { tenant: string; json?: boolean }) => {
      const list = await withServices((services) => services.consoleUsers.list(options.tenant));
      print(list, options.json === true);
    });
  users
    .command('remove <userId>')
    .description('remove a user: their sessions end at once')
    .requiredOption('--tenant <tenantId>')
    .option('--json', 'print JSON')
    .action(async (userId: string, options: { tenant: string; json?: boolean }) => {
      const user = await withServices((services) =>
        services.consoleUsers.remove(options.tenant, userId),
      );
      print(user, options.json === true);
    });
}
