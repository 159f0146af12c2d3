/**
 * The built-in texts of the mails to members, in the member pages' languages (the catalog's
 * third part; catalog.ts). A text is a `Subject:` line, an empty line, and the body (plain
 * text); `{{name}}` is replaced by a variable (mail/mail.ts says which a kind may use). A
 * member's mail is in the language of the page that asked for it (the reminder, the
 * registration), else the account's `--page-language`, else English (mail/mail-sender.ts).
 * An account's own template (`account mail-template`) is used in every language.
 *
 * The mail to operators about a registration (`registered`) is in English, as the console is.
 */

/** The member's mail kinds, and the reminder to an address several members share. */
export type MemberMailText = 'welcome' | 'reset' | 'expiring' | 'registered' | 'refused' | 'shared-reset' | 'welcome-link' | 'payment-failed';

export const MAILS_EN: Readonly<Record<MemberMailText, string>> = {
  welcome: `Subject: Welcome, {{login}}

Hello {{login}},

your membership is ready. Please confirm your e-mail address by opening this link:

{{verify_url}}

If you did not sign up, ignore this mail.
`,
  reset: `Subject: Choose a new password

Hello {{login}},

someone (we hope you) asked to choose a new password for your membership. Open this link to
choose it; it works once, until {{reset_expires}}:

{{reset_url}}

If you did not ask for it, ignore this mail: your password stays as it is.
`,
  expiring: `Subject: Your membership ends soon

Hello {{login}},

your membership ends on {{expires}}. Renew it before then to keep your access.
`,
  registered: `Subject: {{login}} registered and waits for approval

{{login}} <{{email}}> registered on {{account}}'s member pages. Approve or refuse the
registration in the console:

{{approve_url}}
`,
  refused: `Subject: Your registration

Hello {{login}},

your registration was not accepted. If you think this is a mistake, reply to this mail.
`,
  'payment-failed': `Subject: Your payment to {{account}} did not go through

Hello {{login}},

the latest payment for your membership of {{account}} did not go through. Your access stays
until {{paid_until}}; to keep it after that, check your card or payment method here:

{{fix_url}}
`,
  'welcome-link': `Subject: Your membership of {{account}}

Hello {{login}},

a membership of {{account}} was made for you. Choose your password with this link; it works
once, until {{reset_expires}}:

{{reset_url}}

Then sign in with your login, {{login}}, or this e-mail address.
`,
  'shared-reset': `Subject: Choose a new password

Hello,

someone (we hope you) asked to choose a new password for a membership of {{email}} on
{{account}}. Several memberships share this address: each login below has its own link.
Open the one of the login you want to change; each works once, until {{reset_expires}}.

{{reset_links}}

If you did not ask for it, ignore this mail: the passwords stay as they are.
`,
};

export const MAILS_FR: Readonly<Partial<Record<MemberMailText, string>>> = {
  welcome: `Subject: Bienvenue, {{login}}

Bonjour {{login}},

votre adhésion est prête. Merci de confirmer votre adresse e-mail en ouvrant ce lien :

{{verify_url}}

Si vous ne vous êtes pas inscrit, ignorez ce message.
`,
  reset: `Subject: Choisissez un nouveau mot de passe

Bonjour {{login}},

quelqu'un (vous, espérons-le) a demandé à choisir un nouveau mot de passe pour votre adhésion.
Ouvrez ce lien pour le choisir ; il sert une fois, jusqu'au {{reset_expires}} :

{{reset_url}}

Si vous ne l'avez pas demandé, ignorez ce message : votre mot de passe reste le même.
`,
  expiring: `Subject: Votre adhésion se termine bientôt

Bonjour {{login}},

votre adhésion se termine le {{expires}}. Renouvelez-la d'ici là pour garder votre accès.
`,
  refused: `Subject: Votre inscription

Bonjour {{login}},

votre inscription n'a pas été acceptée. Si vous pensez qu'il s'agit d'une erreur, répondez à
ce message.
`,
  'payment-failed': `Subject: Votre paiement à {{account}} n'est pas passé

Bonjour {{login}},

le dernier paiement de votre adhésion à {{account}} n'est pas passé. Votre accès reste ouvert
jusqu'au {{paid_until}} ; pour le garder ensuite, vérifiez votre carte ou votre moyen de
paiement ici :

{{fix_url}}
`,
  'welcome-link': `Subject: Votre adhésion à {{account}}

Bonjour {{login}},

une adhésion à {{account}} a été créée pour vous. Choisissez votre mot de passe avec ce lien ;
il sert une fois, jusqu'au {{reset_expires}} :

{{reset_url}}

Connectez-vous ensuite avec votre identifiant, {{login}}, ou cette adresse e-mail.
`,
  'shared-reset': `Subject: Choisissez un nouveau mot de passe

Bonjour,

quelqu'un (vous, espérons-le) a demandé à choisir un nouveau mot de passe pour une adhésion de
{{email}} sur {{account}}. Plusieurs adhésions partagent cette adresse : chaque identifiant
ci-dessous a son propre lien. Ouvrez celui de l'identifiant à changer ; chacun sert une fois,
jusqu'au {{reset_expires}}.

{{reset_links}}

Si vous ne l'avez pas demandé, ignorez ce message : les mots de passe restent les mêmes.
`,
};
