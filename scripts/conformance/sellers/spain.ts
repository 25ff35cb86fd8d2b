// A Spanish seller: an exempt supply (E) beside a standard rate, Canary Islands IGIC (L) with
// Ceuta IPSI (M), and reverse charge by an AE rate to a Portuguese customer.
import { address, ApiSeller, type ApiDocument } from '../api-documents.ts';
import type { ConformanceServer } from '../api-server.ts';

export async function spanishSeller(server: ConformanceServer): Promise<ApiDocument[]> {
  const es = new ApiSeller(await server.seller('Comercial Ibérica'), 'es');
  await es.settings({
    legalName: 'Comercial Ibérica SL',
    address: address('Calle de Alcalá 50', '28014', 'Madrid', 'ES'),
    taxId: 'ESB12345678',
    email: 'facturas@iberica.example',
    paymentDetails: { iban: 'ES9121000418450200051332' },
    locale: 'es',
  });
  const s21 = await es.rate({ displayName: 'IVA', percentage: 21, inclusive: false });
  const e = await es.rate({
    displayName: 'IVA exento',
    percentage: 0,
    inclusive: false,
    category: 'E',
    exemptionReason: 'Exento por el artículo 20.Uno.9 LIVA',
  });
  const sevilla = await es.customer({
    name: 'Academia Sevilla SA',
    email: 'pagos@academia-sevilla.example',
    address: address('Calle Sierpes 3', '41004', 'Sevilla', 'ES'),
    taxIds: [{ type: 'eu_vat', value: 'ESA87654321' }],
  });
  const exempt = await es.invoice({
    customerId: sevilla,
    currency: 'eur',
    lines: [
      { description: 'Curso de formación', quantity: 2, unitAmount: 45000, taxRates: [e] },
      { description: 'Material didáctico', quantity: 2, unitAmount: 2500, taxRates: [s21] },
    ],
  });
  await es.read('e-exempt-and-s21', 'invoice', exempt.id);

  // Canary Islands IGIC (L) and Ceuta IPSI (M).
  const igic = await es.rate({
    displayName: 'IGIC',
    percentage: 7,
    inclusive: false,
    category: 'L',
  });
  const ipsi = await es.rate({
    displayName: 'IPSI',
    percentage: 4,
    inclusive: false,
    category: 'M',
  });
  const canarias = await es.customer({
    name: 'Hotel Canarias SA',
    email: 'admin@hotel-canarias.example',
    address: address('Avenida Marítima 2', '35001', 'Las Palmas', 'ES'),
    taxIds: [{ type: 'eu_vat', value: 'ESA11111111' }],
  });
  const islands = await es.invoice({
    customerId: canarias,
    currency: 'eur',
    lines: [
      {
        description: 'Alojamiento',
        quantity: 3,
        unitAmount: 12000,
        unitCode: 'DAY',
        taxRates: [igic],
      },
      { description: 'Transporte (Ceuta)', quantity: 1, unitAmount: 8999, taxRates: [ipsi] },
    ],
  });
  await es.read('l-igic-m-ipsi', 'invoice', islands.id);

  // Reverse charge by the rate itself, to a Portuguese customer.
  const ae = await es.rate({
    displayName: 'Inversión del sujeto pasivo',
    percentage: 0,
    inclusive: false,
    category: 'AE',
    exemptionReason: 'Inversión del sujeto pasivo (art. 84.Uno.2º LIVA)',
  });
  const lisboa = await es.customer({
    name: 'Construções Lisboa Lda',
    email: 'contas@construcoes-lisboa.example',
    address: address('Rua Augusta 20', '1100-053', 'Lisboa', 'PT'),
    taxIds: [{ type: 'eu_vat', value: 'PT501964843' }],
  });
  const aeRate = await es.invoice({
    customerId: lisboa,
    currency: 'eur',
    defaultTaxRates: [ae],
    lines: [
      { description: 'Instalación eléctrica', quantity: 40, unitAmount: 5500, unitCode: 'HUR' },
    ],
  });
  await es.read('ae-rate-pt', 'invoice', aeRate.id);
  return es.documents;
}
