/**
 * Every string of the member pages, in one catalog: English built in, French shipped beside
 * it. A page asks for a key; `{name}` in a string is filled from the values given. The account
 * chooses the language (`--page-language`), or leaves it to the browser's Accept-Language.
 */
import type { PageLanguage } from '../accounts/account.js';

const EN = {
  signIn: 'Sign in',
  signInTo: 'Sign in to {name}',
  login: 'Login',
  password: 'Password',
  remember: 'Keep me signed in',
  forgot: 'Forgot your password?',
  noAccount: 'No account yet?',
  register: 'Register',
  registerTo: 'Register with {name}',
  email: 'E-mail address',
  newPassword: 'Password',
  passwordAgain: 'The same password again',
  passwordHint: 'At least {min} characters.',
  createAccount: 'Create my account',
  haveAccount: 'Already registered?',
  registrationClosed: 'Registration is closed',
  registrationClosedText: 'This site does not take new registrations here. If you think you should have access, ask the site’s owner.',
  awaitingApproval: 'Thank you for registering',
  awaitingApprovalText: 'Your registration waits for approval. You will receive an e-mail once it is accepted.',
  lost: 'Forgotten password',
  lostText: 'Give your e-mail address or your login: we will send a link to choose a new password.',
  emailOrLogin: 'E-mail address or login',
  sendLink: 'Send me a link',
  lostSent: 'Check your e-mail',
  lostSentText: 'If an account matches what you gave, a link to choose a new password is on its way to its e-mail address. It works once, for a limited time.',
  backToSignIn: 'Back to sign-in',
  profile: 'Your profile',
  signedInAs: 'Signed in as {login}.',
  save: 'Save',
  saved: 'Your profile is saved.',
  changePassword: 'Change your password',
  currentPassword: 'Current password',
  emailPassword: 'Your password',
  emailPasswordHint: 'Needed only to change the e-mail address.',
  passwordChanged: 'Your password is changed. Your other sessions are ended.',
  myData: 'Your data',
  downloadData: 'Download everything stored about you (JSON)',
  deleteAccount: 'Delete your account',
  deleteText:
    'This ends your membership and erases your data: your password, e-mail address and profile go at once, with your sessions and sign-in records. Only your member number, your login (kept so nobody else takes it at once) and the date of the deletion are kept. Type your password to confirm.',
  deleteButton: 'Delete my account',
  deleted: 'Your account is deleted',
  deletedText:
    'Your membership has ended and you are signed out. Your password, e-mail address, profile, sessions and sign-in records are erased; only your member number, your login and the date of the deletion are kept (the login is freed later).',
  signOut: 'Sign out',
  signOutAsk: 'Do you want to sign out?',
  stay: 'Stay signed in',
  signedOut: 'You are signed out',
  signedOutText: 'Your session has ended.',
  signInAgain: 'Sign in again',
  refused: 'Refused',
  refusedText: 'This form did not come from this site’s own pages, so nothing was done.',
  notFound: 'Page not found',
  notFoundText: 'There is no such page here.',
  errorSummary: 'Please correct the fields marked below.',
  wrongLogin: 'Wrong login or password.',
  suspended: 'Your membership is suspended, or waits for approval.',
  tooMany: 'Too many attempts. Try again in {seconds} seconds.',
  busy: 'The service is busy. Try again in a moment.',
  busyTitle: 'Busy',
  full: 'The site cannot take more data now. Try again later, or ask the site’s owner.',
  thanks: 'Thank you',
  thanksText: 'Your registration is received.',
  unreadable: 'Request not understood',
  unreadableText: 'This request could not be read. Go back and try again.',
  failed: 'Something went wrong',
  failedText: 'The page could not be shown. Try again in a moment.',
  required: 'This field is required.',
  optional: '(optional)',
  invalidEmail: 'This is not an e-mail address.',
  invalidNumber: 'This is not a number.',
  invalidDate: 'This is not a date (YYYY-MM-DD).',
  invalidChoice: 'Choose one of the listed values.',
  tooLong: 'This is too long.',
  loginTaken: 'This login is taken: choose another one.',
  invalidLogin: 'A login has 1 to 64 characters, without spaces or control characters.',
  passwordsDiffer: 'The two passwords are not the same.',
  wrongPassword: 'This is not your current password.',
  passwordTooShort: 'This password is too short: at least {min} characters.',
  passwordTooLong: 'This password is too long.',
  passwordTooCommon: 'This password is too common: it is on lists of breached passwords. Choose another.',
  returnRefused: 'The address to return to is not one this site allows; you will land on the site’s own page.',
  signInHere: 'The form you used is on a site this account does not know: to be safe, sign in here.',
  finishHere: 'The form you used is on a site this account does not know: check what you typed, choose your password here, and create your account.',
  continue: 'Continue',
  signedIn: 'You are signed in',
  choosePassword: 'Choose a new password',
  choosePasswordFor: 'Choose a new password for',
  setPassword: 'Set the password',
  newPasswordLabel: 'New password',
  passwordSet: 'Password changed',
  verified: 'E-mail address verified',
  verifiedText: 'Thank you: your e-mail address is verified.',
  passwordSetText: 'Your password is changed. You can sign in with it now.',
} as const;

export type MessageKey = keyof typeof EN;
type Catalog = Record<MessageKey, string>;

const FR: Catalog = {
  signIn: 'Connexion',
  signInTo: 'Connexion à {name}',
  login: 'Identifiant',
  password: 'Mot de passe',
  remember: 'Rester connecté',
  forgot: 'Mot de passe oublié ?',
  noAccount: 'Pas encore de compte ?',
  register: 'S’inscrire',
  registerTo: 'Inscription à {name}',
  email: 'Adresse e-mail',
  newPassword: 'Mot de passe',
  passwordAgain: 'Le même mot de passe, à nouveau',
  passwordHint: 'Au moins {min} caractères.',
  createAccount: 'Créer mon compte',
  haveAccount: 'Déjà inscrit ?',
  registrationClosed: 'Les inscriptions sont fermées',
  registrationClosedText: 'Ce site ne prend pas de nouvelles inscriptions ici. Si vous pensez devoir y avoir accès, demandez au propriétaire du site.',
  awaitingApproval: 'Merci pour votre inscription',
  awaitingApprovalText: 'Votre inscription attend d’être validée. Vous recevrez un e-mail dès qu’elle sera acceptée.',
  lost: 'Mot de passe oublié',
  lostText: 'Indiquez votre adresse e-mail ou votre identifiant : nous vous enverrons un lien pour choisir un nouveau mot de passe.',
  emailOrLogin: 'Adresse e-mail ou identifiant',
  sendLink: 'Envoyer le lien',
  lostSent: 'Consultez vos e-mails',
  lostSentText:
    'Si un compte correspond, un lien pour choisir un nouveau mot de passe part vers son adresse e-mail. Il fonctionne une fois, pendant un temps limité.',
  backToSignIn: 'Retour à la connexion',
  profile: 'Votre profil',
  signedInAs: 'Connecté en tant que {login}.',
  save: 'Enregistrer',
  saved: 'Votre profil est enregistré.',
  changePassword: 'Changer de mot de passe',
  currentPassword: 'Mot de passe actuel',
  emailPassword: 'Votre mot de passe',
  emailPasswordHint: 'Nécessaire seulement pour changer l’adresse e-mail.',
  passwordChanged: 'Votre mot de passe est changé. Vos autres sessions sont terminées.',
  myData: 'Vos données',
  downloadData: 'Télécharger tout ce qui est conservé sur vous (JSON)',
  deleteAccount: 'Supprimer votre compte',
  deleteText:
    'Cela met fin à votre adhésion et efface vos données : votre mot de passe, votre adresse e-mail et votre profil disparaissent aussitôt, avec vos sessions et l’historique de vos connexions. Seuls votre numéro de membre, votre identifiant (gardé pour que personne ne le prenne aussitôt) et la date de la suppression sont conservés. Tapez votre mot de passe pour confirmer.',
  deleteButton: 'Supprimer mon compte',
  deleted: 'Votre compte est supprimé',
  deletedText:
    'Votre adhésion a pris fin et vous êtes déconnecté. Votre mot de passe, votre adresse e-mail, votre profil, vos sessions et l’historique de vos connexions sont effacés ; seuls votre numéro de membre, votre identifiant et la date de la suppression sont conservés (l’identifiant est libéré plus tard).',
  signOut: 'Se déconnecter',
  signOutAsk: 'Voulez-vous vous déconnecter ?',
  stay: 'Rester connecté',
  signedOut: 'Vous êtes déconnecté',
  signedOutText: 'Votre session est terminée.',
  signInAgain: 'Se reconnecter',
  refused: 'Refusé',
  refusedText: 'Ce formulaire ne vient pas des pages de ce site : rien n’a été fait.',
  notFound: 'Page introuvable',
  notFoundText: 'Cette page n’existe pas.',
  errorSummary: 'Corrigez les champs signalés ci-dessous.',
  wrongLogin: 'Identifiant ou mot de passe incorrect.',
  suspended: 'Votre adhésion est suspendue, ou attend d’être validée.',
  tooMany: 'Trop de tentatives. Réessayez dans {seconds} secondes.',
  busy: 'Le service est occupé. Réessayez dans un instant.',
  busyTitle: 'Occupé',
  full: 'Le site ne peut plus rien enregistrer pour l’instant. Réessayez plus tard, ou écrivez au propriétaire du site.',
  thanks: 'Merci',
  thanksText: 'Votre inscription est reçue.',
  unreadable: 'Requête incomprise',
  unreadableText: 'Cette requête n’a pas pu être lue. Revenez en arrière et réessayez.',
  failed: 'Une erreur est survenue',
  failedText: 'La page n’a pas pu être affichée. Réessayez dans un instant.',
  required: 'Ce champ est obligatoire.',
  optional: '(facultatif)',
  invalidEmail: 'Ce n’est pas une adresse e-mail.',
  invalidNumber: 'Ce n’est pas un nombre.',
  invalidDate: 'Ce n’est pas une date (AAAA-MM-JJ).',
  invalidChoice: 'Choisissez l’une des valeurs proposées.',
  tooLong: 'C’est trop long.',
  loginTaken: 'Cet identifiant est pris : choisissez-en un autre.',
  invalidLogin: 'Un identifiant a de 1 à 64 caractères, sans espace ni caractère de contrôle.',
  passwordsDiffer: 'Les deux mots de passe ne sont pas les mêmes.',
  wrongPassword: 'Ce n’est pas votre mot de passe actuel.',
  passwordTooShort: 'Ce mot de passe est trop court : au moins {min} caractères.',
  passwordTooLong: 'Ce mot de passe est trop long.',
  passwordTooCommon: 'Ce mot de passe est trop courant : il figure sur des listes de mots de passe divulgués. Choisissez-en un autre.',
  returnRefused: 'L’adresse de retour n’est pas autorisée par ce site ; vous arriverez sur la page du site.',
  signInHere: 'Le formulaire utilisé se trouve sur un site que ce compte ne connaît pas : par sécurité, connectez-vous ici.',
  finishHere:
    'Le formulaire utilisé se trouve sur un site que ce compte ne connaît pas : vérifiez ce que vous avez saisi, choisissez votre mot de passe ici et créez votre compte.',
  continue: 'Continuer',
  signedIn: 'Vous êtes connecté',
  choosePassword: 'Choisir un nouveau mot de passe',
  choosePasswordFor: 'Choisissez un nouveau mot de passe pour',
  setPassword: 'Enregistrer le mot de passe',
  newPasswordLabel: 'Nouveau mot de passe',
  passwordSet: 'Mot de passe changé',
  verified: 'Adresse e-mail vérifiée',
  verifiedText: 'Merci : votre adresse e-mail est vérifiée.',
  passwordSetText: 'Votre mot de passe est changé. Vous pouvez vous connecter avec.',
};

export const LANGUAGES = { en: EN as Catalog, fr: FR } as const;
export type Language = keyof typeof LANGUAGES;

/** A page's words: `t(key, values)`. */
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(language: Language): Translate {
  const catalog = LANGUAGES[language];
  return (key, values) => (values ? catalog[key].replace(/\{(\w+)\}/g, (all, name: string) => String(values[name] ?? all)) : catalog[key]);
}

/**
 * The account's language, or (`auto`) the first of the browser's Accept-Language that is
 * built in, by its weight; English when none is.
 */
export function pickLanguage(setting: PageLanguage, acceptLanguage: string | undefined): Language {
  if (setting !== 'auto') return setting;
  const wanted = (acceptLanguage ?? '')
    .slice(0, 512)
    .split(',')
    .map((part, index) => {
      const [tag, ...options] = part.trim().split(';');
      const q = options.map((option) => /^\s*q=([0-9.]+)\s*$/.exec(option)?.[1]).find((value) => value !== undefined);
      return { language: (tag ?? '').split('-')[0]!.toLowerCase(), weight: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return (wanted.find((entry) => Object.hasOwn(LANGUAGES, entry.language))?.language as Language | undefined) ?? 'en';
}
